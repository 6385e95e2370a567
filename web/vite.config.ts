import { defineConfig } from "vitest/config";

// The gateway serves web/dist at "/" and the websocket at "/ws" on the same origin.
export default defineConfig({
  base: "/",
  build: {
    outDir: "dist", emptyOutDir: true, sourcemap: false,
    // Content-hashed names under assets/: the gateway lets browsers keep these for a year
    // (services/gateway/webassets.py).
    assetsDir: "assets",
    rollupOptions: {
      output: { entryFileNames: "assets/[name]-[hash].js", chunkFileNames: "assets/[name]-[hash].js", assetFileNames: "assets/[name]-[hash][extname]" },
    },
  },
  server: {
    // `npm run dev` talks to a gateway on BOXEDIN_GATEWAY (default 127.0.0.1:8000, as `boxedin up` uses).
    proxy: { "/ws": { target: `ws://${process.env.BOXEDIN_GATEWAY ?? "127.0.0.1:8000"}`, ws: true } },
  },
  test: { include: ["test/**/*.test.ts"], environment: "node" },
});
