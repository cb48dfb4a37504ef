import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATA_DIR } from "../support/memory-fixtures.js";

const run = promisify(execFile);
const MAIN = join(import.meta.dirname, "../../src/cli/main.ts");

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", MAIN, ...args], {
      env: { ...process.env, IRONCLAW_HOME: TEST_DATA_DIR, IRONCLAW_LOG: "silent" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let dir: string;
let brain: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ironclaw-cli-"));
  brain = join(dir, "brain");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("ironclaw brain / memory", () => {
  it("creates a brain, indexes it and searches it with JSON output", async () => {
    const init = await cli("brain", "init", brain, "--agent", "helper");
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("created config/agents/helper.toml");
    await writeFile(
      join(brain, "logs", "2026-01-10.md"),
      "# 2026-01-10\n\n## Boiler\n\nThe boiler engineer fixed the pressure valve; annual service due in October.\n",
    );

    const index = await cli("memory", "index", "--brain", brain);
    expect(index.code).toBe(0);
    expect(index.stdout).toMatch(/indexed 5 files \(5 updated, 0 unchanged, 0 removed\)/);
    expect(index.stderr).toBe("");

    const search = await cli(
      "memory",
      "search",
      "--brain",
      brain,
      "--json",
      "--top-k",
      "1",
      "heating",
      "repair",
    );
    expect(search.code).toBe(0);
    const body = JSON.parse(search.stdout) as { query: string; results: Array<Record<string, unknown>> };
    expect(body.query).toBe("heating repair");
    expect(body.results).toHaveLength(1);
    expect(body.results[0]).toMatchObject({
      path: "logs/2026-01-10.md",
      headings: ["2026-01-10", "Boiler"],
      startLine: 3,
    });
    expect(body.results[0]).toHaveProperty("semantic.similarity");
    expect(body.results[0]).toHaveProperty("lexical.score");

    const again = await cli("memory", "index", "--brain", brain, "--json");
    expect(JSON.parse(again.stdout)).toMatchObject({ unchanged: 5, updated: 0, embedded: 0 });

    const status = await cli("memory", "status", "--brain", brain, "--json");
    expect(JSON.parse(status.stdout)).toMatchObject({ files: 5, embedderStale: false, vectorLists: 1 });

    const reindex = await cli("memory", "reindex", "--brain", brain, "--json");
    expect(JSON.parse(reindex.stdout)).toMatchObject({ updated: 5, embedded: 0 });
  });

  it("explains usage mistakes with exit code 2 and bad paths with exit code 1", async () => {
    const noBrain = await cli("memory", "search", "x");
    expect(noBrain.code).toBe(2);
    expect(noBrain.stderr).toContain("missing --brain <dir>");
    const badMode = await cli("memory", "search", "--brain", brain, "--mode", "fuzzy", "x");
    expect(badMode.code).toBe(2);
    const missing = await cli("memory", "status", "--brain", join(dir, "nope"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("not found");
  });
});
