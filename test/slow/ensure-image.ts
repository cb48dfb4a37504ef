// Builds the microvm suite's cell image when it is missing or older than the sources it carries, so
// `npm run test:microvm` always boots the code under test. Prints build progress on stderr.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { buildImage, imagePaths, PACKAGE_ROOT, readImageStatus } from "../../src/cells/index.js";
import { TEST_IMAGE_DIR } from "../cells/suite-backends.js";

async function newestSource(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith(".ts")) {
      newest = Math.max(newest, (await stat(join(entry.parentPath, entry.name))).mtimeMs);
    }
  }
  return newest;
}

const paths = imagePaths(TEST_IMAGE_DIR);
const status = await readImageStatus(paths);
const builtAt = status.manifest ? Date.parse(status.manifest.built_at) : 0;
const sources = await newestSource(join(PACKAGE_ROOT, "src"));
if (status.ready && builtAt > sources) {
  process.stderr.write(`cell image in ${paths.dir} is up to date\n`);
} else {
  process.stderr.write(
    `building the cell image in ${paths.dir} (${status.ready ? "sources changed" : "missing"})\n`,
  );
  const started = Date.now();
  // The runtime is compiled and bundled again only when `npm run build` has not done it since the last edit (CI
  // has just run it, in npm install).
  const bundledAt = await stat(join(PACKAGE_ROOT, "dist/cell/bundle.json")).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  await buildImage({
    paths,
    compile: bundledAt <= sources,
    onProgress: (p) =>
      process.stderr.write(
        `  [${p.step}/${p.total}] ${p.title}${p.detail ? ` (${p.detail})` : ""} +${Date.now() - started} ms\n`,
      ),
  });
}
