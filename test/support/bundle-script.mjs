// node bundle-script.mjs <script.ts> <out dir> <src dir> <dist dir>: bundles a test script and the test modules it
// imports into one ES module whose imports of the product (src/) load its compiled twins in dist/ instead, and
// prints the bundle's path (named by its content, written once). Used by built-script.ts.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve, sep } from "node:path";
import { build } from "esbuild";

const [script, outDir, src, dist] = process.argv.slice(2);

/** Imports of the product become imports of its compiled twin in dist/, left out of the bundle. */
const productFromDist = {
  name: "product-from-dist",
  setup(b) {
    b.onResolve({ filter: /^\.{1,2}\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (!target.startsWith(src + sep)) return undefined;
      return { path: join(dist, relative(src, target)), external: true };
    });
  },
};

const result = await build({
  entryPoints: [script],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  write: false,
  metafile: true,
  outdir: outDir,
  logLevel: "silent",
  plugins: [productFromDist],
});
// A bundled test module asking import.meta.url for its own place would get the bundle's: refuse, not mislead.
for (const input of Object.keys(result.metafile.inputs)) {
  if (readFileSync(resolve(input), "utf8").includes("import.meta.url")) {
    console.error(`${input} uses import.meta.url, which a bundled test script cannot answer for it`);
    process.exit(1);
  }
}
const code = result.outputFiles[0].text;
const digest = createHash("sha256").update(code).digest("hex").slice(0, 16);
const out = join(outDir, `${basename(script, ".ts")}-${digest}.mjs`);
if (!existsSync(out)) {
  mkdirSync(outDir, { recursive: true });
  const partial = `${out}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, out);
}
console.log(out);
