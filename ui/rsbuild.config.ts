import { defineConfig } from "@rsbuild/core";
import { pluginBabel } from "@rsbuild/plugin-babel";
import { pluginSolid } from "@rsbuild/plugin-solid";

// The web UI, built into ui/dist and served by the warden at /ui. Every file it loads sits flat in assets/
// with its content hash in the name (the warden caches those for a year), addressed relative to the page so
// the UI works under whatever path the warden mounts it at. Nothing inline: the page's CSP forbids it.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [pluginBabel({ include: /\.(?:jsx|tsx)$/ }), pluginSolid()],
  source: { entry: { index: "./src/main.tsx" } },
  html: {
    template: "./index.html",
    title: "IronClaw",
    inject: "head",
    scriptLoading: "defer",
  },
  output: {
    distPath: {
      root: "dist",
      js: "assets",
      jsAsync: "assets",
      css: "assets",
      cssAsync: "assets",
      svg: "assets",
      font: "assets",
      image: "assets",
      media: "assets",
      assets: "assets",
    },
    assetPrefix: "./",
    filenameHash: "contenthash:10",
    inlineScripts: false,
    inlineStyles: false,
    dataUriLimit: 0,
    sourceMap: false,
    cleanDistPath: true,
  },
  performance: {
    chunkSplit: {
      strategy: "split-by-experience",
      // Code two screens share (the file editor of Memory and Instructions) is fetched once, not in each.
      override: {
        cacheGroups: {
          shared: { chunks: "async", minChunks: 2, minSize: 0, priority: -5, reuseExistingChunk: true },
        },
      },
    },
  },
});
