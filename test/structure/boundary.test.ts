import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { GUEST_EXTERNAL_PACKAGES } from "../../src/cells/image/guest-bundle.js";
import {
  checkHouse,
  HOST_ONLY_FOLDERS,
  HOST_ONLY_PACKAGES,
  type SourceFile,
  type Violation,
} from "./house-rules.js";

// The jail's boundary is a folder boundary (ARCHITECTURE "The house"): what runs in a cell never imports host
// code, and data flows down the floors. Checked twice: by what the files say they import, and by what the cell
// bundle's own bundler actually pulls in from the inmate's entry.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function sourceFiles(dir: string): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const full = join(entry.parentPath, entry.name);
    files.push({ path: relative(ROOT, full), text: await readFile(full, "utf8") });
  }
  return files;
}

const readable = (violations: readonly Violation[]) =>
  violations.map((v) => `${v.file} → ${v.specifier || "(file)"}: ${v.rule}`);

let files: SourceFile[] = [];
beforeAll(async () => {
  files = await sourceFiles("src");
});

describe("the house's floors", () => {
  it("no file of src/ imports a higher floor, a forbidden folder or a host-only package from the inmate", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(readable(checkHouse(files))).toEqual([]);
  });

  it("the check names each violation planted among the real files, and only those (the probe runs)", () => {
    const planted: SourceFile[] = [
      { path: "src/inmate/planted.ts", text: 'import { wardenMain } from "../warden/index.js";\n' },
      { path: "src/inmate/planted-server.ts", text: 'import Fastify from "fastify";\n' },
      { path: "src/egress/planted.ts", text: 'import { ToolRefusal } from "../agent/index.js";\n' },
      { path: "src/command/planted.ts", text: 'const m = await import("../inmate/irowclaw.js");\n' },
      // Text that only looks like an import is not one.
      {
        path: "src/inmate/planted-comment.ts",
        text: '// import x from "../warden/index.js"\nconst s = "pg";\n',
      },
    ];
    expect(readable(checkHouse([...files, ...planted]))).toEqual([
      "src/inmate/planted.ts → ../warden/index.js: inmate (floor 5) imports warden (floor 6), a higher floor",
      "src/inmate/planted-server.ts → fastify: inmate imports the host-only package fastify",
      "src/egress/planted.ts → ../agent/index.js: egress (floor 3) imports agent (floor 4), a higher floor",
      "src/command/planted.ts → ../inmate/irowclaw.js: command must not import inmate: what runs in a cell is imported by nothing of the host",
    ]);
  });

  it("the check names an arrow on one floor the house does not draw, and the cycle it closes", () => {
    const tree: SourceFile[] = [
      { path: "src/http/a.ts", text: 'import type { Row } from "../channel/index.js";\n' },
      { path: "src/channel/b.ts", text: 'export { route } from "../http/index.js";\n' },
      { path: "src/ledger/c.ts", text: 'import { route } from "../http/index.js";\n' },
    ];
    expect(readable(checkHouse(tree))).toEqual([
      "src/http/a.ts → ../channel/index.js: http imports channel on its own floor (3), an arrow the house does not draw",
      "src/channel/b.ts → ../http/index.js: channel imports http on its own floor (3), an arrow the house does not draw",
      "src/channel/b.ts → ../http/index.js: import cycle between folders: channel → http → channel",
    ]);
  });
});

describe("the cell bundle's reach", () => {
  it("from the inmate's entry, esbuild reaches no host-only folder and no host-only package", async () => {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: ["src/inmate/irowclaw.ts"],
      outfile: "reach-check.cjs",
      bundle: true,
      write: false,
      metafile: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      external: GUEST_EXTERNAL_PACKAGES,
      define: { "import.meta.url": "__cellUrl" },
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((i) => i.startsWith("src/inmate/"))).toBe(true);
    expect(inputs.some((i) => i.includes("node_modules/zod/"))).toBe(true);
    const externals = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
    const hostOnly = [
      ...inputs.filter((i) => HOST_ONLY_FOLDERS.some((folder) => i.startsWith(`src/${folder}/`))),
      ...[...inputs, ...externals].filter((i) =>
        HOST_ONLY_PACKAGES.some(
          (name) => i === name || i.startsWith(`${name}/`) || i.includes(`node_modules/${name}/`),
        ),
      ),
    ];
    expect(hostOnly).toEqual([]);
  });
});
