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

// The chat page is where most visits land: its chunks are named in
// index.html as modulepreload links, so the browser fetches (and compiles)
// them beside the entry instead of after the entry has run and asked.
function preloadChat(): Plugin {
  return {
    name: "smriti-preload-chat",
    apply: "build",
    enforce: "post",
    generateBundle(_, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === "chunk");
      const chat = chunks.find((c) => c.type === "chunk" && c.facadeModuleId?.endsWith("/src/pages/Chat.tsx"));
      const html = bundle["index.html"];
      if (!chat || chat.type !== "chunk" || !html || html.type !== "asset") return;
      const entry = new Set<string>();
      const walk = (name: string, into: Set<string>) => {
        const c = bundle[name];
        if (!c || c.type !== "chunk" || into.has(name)) return;
        into.add(name);
        c.imports.forEach((i) => walk(i, into));
      };
      chunks.filter((c) => c.type === "chunk" && c.isEntry).forEach((c) => walk(c.fileName, entry));
      const page = new Set<string>();
      walk(chat.fileName, page);
      const links = [...page].filter((f) => !entry.has(f)).map((f) => `<link rel="modulepreload" crossorigin href="/${f}">`);
      html.source = String(html.source).replace("</head>", `  ${links.join("\n    ")}\n  </head>`);
    },
  };
}

// The API runs on :8000 (`smriti serve`); the dev server proxies to it so the
// app is same-origin in development as it is when embedded.
export default defineConfig({
  plugins: [react(), chunkBudget(), preloadChat()],
  server: { proxy: { "/api": "http://127.0.0.1:8000", "/health": "http://127.0.0.1:8000" } },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 500 },
  test: {
    environment: "jsdom",
    // Generous: CI machines here are shared and slow.
    testTimeout: 30_000,
    include: ["src/**/*.test.tsx", "src/**/*.test.ts", "scripts/**/*.test.mjs"],
  },
});
