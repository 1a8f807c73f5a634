// Builds the browser editor into an ES module (plus the chunks it loads on demand) and one CSS
// file, all with fixed names, committed under static/editor/dist so that running Pipewright
// needs no Node.js.
// `vite build --outDir <folder>` builds elsewhere (tests/editor/test_frontend.py compares).
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [react()],
  publicDir: false,
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  build: {
    outDir: "static/editor/dist",
    emptyOutDir: true,
    cssCodeSplit: false,
    sourcemap: false,
    reportCompressedSize: false,
    lib: {
      entry: "static/editor/src/main.jsx",
      formats: ["es"],
      fileName: () => "editor.js",
      cssFileName: "editor",
    },
    minify: true,
    // Chunks loaded on demand (the expression editor's CodeMirror) get fixed names too, and
    // what editor.js shares with them is shared.js (the pages preload it; its name must not
    // follow whichever module the bundler names a shared chunk after).
    rollupOptions: {
      output: {
        chunkFileNames: (chunk) =>
          chunk.isDynamicEntry || !chunk.moduleIds.length ? "[name].js" : "shared.js",
        minify: true,
      },
    },
  },
  test: {
    include: ["static/editor/src/**/*.test.js"],
    environment: "node",
  },
});
