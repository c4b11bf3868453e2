import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// The API runs on :8000 (`smriti serve`); the dev server proxies to it so the
// app is same-origin in development as it is when embedded.
export default defineConfig({
  plugins: [react()],
  server: { proxy: { "/api": "http://127.0.0.1:8000", "/health": "http://127.0.0.1:8000" } },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 600 },
  test: {
    environment: "jsdom",
    // Generous: CI machines here are shared and slow.
    testTimeout: 30_000,
    include: ["src/**/*.test.tsx", "src/**/*.test.ts"],
  },
});
