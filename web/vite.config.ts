import { defineConfig, type Plugin } from "vitest/config";
import react from "@vitejs/plugin-react";

/** No chunk may be larger than this (minified, before gzip): the build fails otherwise. */
export const MAX_CHUNK_BYTES = 500 * 1024;

// Fails the build when a chunk outgrows the budget, instead of only warning.
function chunkBudget(): Plugin {
  return {
    name: "smriti-chunk-budget",
    apply: "build",
    generateBundle(_, bundle) {
      const over = Object.values(bundle)
        .filter((c) => c.type === "chunk" && c.code.length > MAX_CHUNK_BYTES)
        .map((c) => `${c.fileName} (${Math.round((c.type === "chunk" ? c.code.length : 0) / 1024)} kB)`);
      if (over.length) this.error(`chunks over ${MAX_CHUNK_BYTES / 1024} kB: ${over.join(", ")}; split them (React.lazy, manual chunks)`);
    },
  };
}

// The API runs on :8000 (`smriti serve`); the dev server proxies to it so the
// app is same-origin in development as it is when embedded.
export default defineConfig({
  plugins: [react(), chunkBudget()],
  server: { proxy: { "/api": "http://127.0.0.1:8000", "/health": "http://127.0.0.1:8000" } },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 500 },
  test: {
    environment: "jsdom",
    // Generous: CI machines here are shared and slow.
    testTimeout: 30_000,
    include: ["src/**/*.test.tsx", "src/**/*.test.ts"],
  },
});
