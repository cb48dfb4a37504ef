#!/usr/bin/env node
// npm run build:js: compiles src/ (tests aside) into dist/, one module per source with its source map. Each file
// is transpiled on its own (the sources are written for it: isolatedModules, verbatimModuleSyntax), so the build
// takes seconds and never fails on a type: `npm run typecheck` is where types are checked.
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts")
      ? [path]
      : [];
  });
}

const started = performance.now();
const entryPoints = sources(src);
await build({
  entryPoints,
  outdir: join(root, "dist"),
  outbase: src,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  tsconfig: join(root, "tsconfig.build.json"),
  logLevel: "warning",
});
console.log(
  `compiled ${entryPoints.length} modules of ${relative(root, src)}/ into dist/ in ${Math.round(performance.now() - started)} ms`,
);
