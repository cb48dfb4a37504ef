import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIronclawInProcess } from "../cli/run-cli.js";
import { cliEntry } from "../support/cli-entry.js";
import { TEST_DATA_DIR } from "../support/memory-fixtures.js";

const run = promisify(execFile);

/**
 * `ironclaw …` as a real process: the big brain's pass below goes through the binary, whose index worker thread
 * loads from the sources beside it.
 */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...cliEntry(), ...args], {
      env: { ...process.env, IRONCLAW_HOME: TEST_DATA_DIR, IRONCLAW_LOG: "silent" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The commands' logic in this process, with the same home. */
async function inProcess(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const result = await runIronclawInProcess(args, { env: { IRONCLAW_HOME: TEST_DATA_DIR } });
  return { ...result, code: result.code ?? -1 };
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
    const init = await inProcess("brain", "init", brain, "--agent", "helper");
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("created config/agents/helper.toml");
    await writeFile(
      join(brain, "logs", "2026-01-10.md"),
      "# 2026-01-10\n\n## Boiler\n\nThe boiler engineer fixed the pressure valve; annual service due in October.\n",
    );

    const index = await inProcess("memory", "index", "--brain", brain);
    expect(index.code).toBe(0);
    expect(index.stdout).toMatch(/indexed 5 files \(5 updated, 0 unchanged, 0 removed\)/);
    expect(index.stderr).toBe("");

    const search = await inProcess(
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

    const again = await inProcess("memory", "index", "--brain", brain, "--json");
    expect(JSON.parse(again.stdout)).toMatchObject({ unchanged: 5, updated: 0, embedded: 0 });

    const status = await inProcess("memory", "status", "--brain", brain, "--json");
    expect(JSON.parse(status.stdout)).toMatchObject({ files: 5, embedderStale: false, vectorLists: 1 });

    const reindex = await inProcess("memory", "reindex", "--brain", brain, "--json");
    expect(JSON.parse(reindex.stdout)).toMatchObject({ updated: 5, embedded: 0 });
  });

  it("explains usage mistakes with exit code 2 and bad paths with exit code 1", async () => {
    const noBrain = await inProcess("memory", "search", "x");
    expect(noBrain.code).toBe(2);
    expect(noBrain.stderr).toContain("missing --brain <dir>");
    const badMode = await inProcess("memory", "search", "--brain", brain, "--mode", "fuzzy", "x");
    expect(badMode.code).toBe(2);
    const missing = await inProcess("memory", "status", "--brain", join(dir, "nope"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("not found");
  });

  it("indexes a brain of over a mebibyte on two threads, and finds what it holds", async () => {
    const big = join(dir, "big");
    expect((await inProcess("brain", "init", big)).code).toBe(0);
    const chunksOf = async () =>
      JSON.parse((await inProcess("memory", "status", "--brain", big, "--json")).stdout).chunks;
    expect((await inProcess("memory", "index", "--brain", big)).code).toBe(0);
    const starter = await chunksOf();
    await mkdir(join(big, "notes"), { recursive: true });
    const topics = ["harbour", "orchard", "glacier", "bakery", "lighthouse", "vineyard", "quarry", "meadow"];
    let bytes = 0;
    for (let i = 0; i < 450; i++) {
      const sections = [0, 1, 2].map((s) => {
        const topic = topics[(i + s) % topics.length] as string;
        return `## ${topic} ${i}-${s}\n\n${`The ${topic} visit number ${i} went well. `.repeat(20)}\n`;
      });
      const text = `# Trip ${i}\n\n${sections.join("\n")}`;
      bytes += Buffer.byteLength(text);
      await writeFile(join(big, "notes", `trip-${i}.md`), text);
    }
    await writeFile(join(big, "notes", "kettle.md"), "# Kettle\n\nThe red kettle whistles at dawn.\n");
    expect(bytes).toBeGreaterThan(1024 * 1024);
    // The big pass through the binary: its worker thread loads from the sources beside the real entry.
    const index = await cli("memory", "index", "--brain", big);
    expect(index.code).toBe(0);
    // 450 trips and the kettle; the starter files are unchanged.
    expect(index.stdout).toMatch(/indexed 455 files \(451 updated, 4 unchanged/);
    // The worker starts only where a second core exists; with one, the pass says nothing of threads.
    if (availableParallelism() >= 2) expect(index.stdout).toContain("read and embedded on a second thread");
    else expect(index.stdout).not.toContain("second thread");
    expect(await chunksOf()).toBe(starter + 450 * 3 + 1);
    const hit = await inProcess("memory", "search", "--brain", big, "--json", "red kettle whistles");
    expect(hit.code).toBe(0);
    expect(JSON.parse(hit.stdout).results[0]).toMatchObject({ path: "notes/kettle.md" });
  });
});
