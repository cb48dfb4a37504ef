import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const BUNDLER = fileURLToPath(new URL("./bundle-script.mjs", import.meta.url));

describe("bundle-script", () => {
  let root = "";
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A package: src/greet.ts, its compiled twin in dist/ (saying something else), and test/script.ts. */
  function tree(script: string): { src: string; dist: string; out: string; entry: string } {
    root = mkdtempSync(join(tmpdir(), "ironclaw-built-script-"));
    const src = join(root, "src");
    const dist = join(root, "dist");
    mkdirSync(src);
    mkdirSync(dist);
    mkdirSync(join(root, "test/helpers"), { recursive: true });
    writeFileSync(join(src, "greet.ts"), 'export const greet = (n: string): string => "source " + n;\n');
    writeFileSync(join(dist, "greet.js"), 'export const greet = (n) => "compiled " + n;\n');
    writeFileSync(join(root, "test/helpers/name.ts"), 'export const name: string = "cell";\n');
    writeFileSync(join(root, "test/script.ts"), script);
    return { src, dist, out: join(root, "out"), entry: join(root, "test/script.ts") };
  }

  function bundle(t: ReturnType<typeof tree>) {
    return spawnSync(process.execPath, [BUNDLER, t.entry, t.out, t.src, t.dist], {
      encoding: "utf8",
      cwd: root,
    });
  }

  it("bundles the test modules and loads the product from dist/", () => {
    const t = tree(
      'import { greet } from "../src/greet.js";\nimport { name } from "./helpers/name.js";\nconsole.log(greet(name));\n',
    );
    const made = bundle(t);
    expect(made.stderr).toBe("");
    const out = made.stdout.trim();
    expect(out.startsWith(t.out)).toBe(true);
    const ran = spawnSync(process.execPath, [out], { encoding: "utf8" });
    expect(ran.stdout.trim()).toBe("compiled cell");
  });

  it("refuses a test module that asks import.meta.url for its own place", () => {
    const t = tree('console.log(new URL("./x", import.meta.url).pathname);\n');
    const made = bundle(t);
    expect(made.status).toBe(1);
    expect(made.stderr).toMatch(/script\.ts uses import\.meta\.url/);
  });
});
