import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
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
  it("no file of src/ imports a higher floor, a forbidden folder, another folder's inner file or a host-only package from the inmate", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(readable(checkHouse(files))).toEqual([]);
  });

  it("the check names each violation planted among the real files, and only those (the probe runs)", () => {
    const planted: SourceFile[] = [
      { path: "src/inmate/planted.ts", text: 'import { wardenMain } from "../warden/index.js";\n' },
      { path: "src/inmate/planted-server.ts", text: 'import Fastify from "fastify";\n' },
      { path: "src/egress/planted.ts", text: 'import { ToolRefusal } from "../agent/index.js";\n' },
      { path: "src/command/planted.ts", text: 'const m = await import("../inmate/irowclaw.js");\n' },
      // Past a folder's index.ts, and past a room's inside one folder; a unit test beside its file may.
      { path: "src/cli/planted.ts", text: 'import { UserStore } from "../warden/user-store.js";\n' },
      { path: "src/warden/planted.ts", text: 'import { setBudget } from "./budget/budget-admin.js";\n' },
      { path: "src/cli/planted.test.ts", text: 'import { UserStore } from "../warden/user-store.js";\n' },
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
      "src/cli/planted.ts → ../warden/user-store.js: cli imports an inner file of warden: import its surface, src/warden/index.ts",
      "src/warden/planted.ts → ./budget/budget-admin.js: warden imports an inner file of the room warden/budget: import src/warden/budget/index.ts",
      // The warden hosts command, so the planted command → inmate and inmate → warden close a loop through it.
      "src/command/planted.ts → ../inmate/irowclaw.js: import cycle between folders: command → inmate → warden → command",
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
  let result: Metafile = { inputs: {}, outputs: {} };
  beforeAll(async () => {
    ({ metafile: result } = await build({
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
    }));
  });

  it("from the inmate's entry, esbuild reaches no host-only folder and no host-only package", () => {
    const inputs = Object.keys(result.inputs);
    expect(inputs.some((i) => i.startsWith("src/inmate/"))).toBe(true);
    expect(inputs.some((i) => i.includes("node_modules/zod/"))).toBe(true);
    const externals = Object.values(result.outputs).flatMap((o) => o.imports.map((i) => i.path));
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

  it("an echo cell's start evaluates no agent, memory, provider or logger: only its handler's own imports", () => {
    // What a start evaluates: the entry's static imports and the handler module's, followed through every
    // index.ts they name (a dynamic import is evaluated only when it runs). The agent handler's start shows
    // the probe sees a whole index.
    const heavy = [
      /^src\/(agent|memory|providers)\//,
      /^src\/core\/logger\.ts$/,
      /^src\/contracts\/cell\/index\.ts$/,
      /^node_modules\/pino\//,
    ];
    const evaluatedBy = (handler: string) =>
      staticClosure(result, ["src/inmate/irowclaw.ts", handler]).filter((i) => heavy.some((h) => h.test(i)));
    expect(evaluatedBy("src/inmate/agent-handler.ts")).toEqual(
      expect.arrayContaining(["src/agent/index.ts", "src/memory/index.ts", "src/core/logger.ts"]),
    );
    expect(evaluatedBy("src/inmate/echo-handler.ts")).toEqual([]);
  });
});

function staticClosure(metafile: Metafile, starts: readonly string[]): string[] {
  const seen = new Set<string>();
  const todo = [...starts];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const i of metafile.inputs[file]?.imports ?? [])
      if (!i.external && i.kind !== "dynamic-import") todo.push(i.path);
  }
  return [...seen];
}
