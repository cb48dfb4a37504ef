import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempBrain, type TempBrain } from "../../test/support/memory-fixtures.js";
import { agentProfileSchema, cronJobsSchema, irowclawConfigSchema } from "../contracts/index.js";
import { InvalidInputError, parseTomlConfig } from "../core/index.js";
import { BrainLayout, isIndexablePath } from "./brain-layout.js";
import { initBrain } from "./brain-starter.js";

let temp: TempBrain;
afterEach(() => temp?.cleanup());

describe("brain layout", () => {
  it("resolves paths inside the brain, including files not created yet", async () => {
    temp = await makeTempBrain({ "memory.md": "# Memory\n" });
    expect(temp.brain.resolve("memory.md")).toBe(join(temp.brain.root, "memory.md"));
    expect(temp.brain.resolve("logs/2030/new.md")).toBe(join(temp.brain.root, "logs/2030/new.md"));
    expect(temp.brain.relativePath(join(temp.brain.root, "a", "b.md"))).toBe("a/b.md");
  });

  it.each([
    ["../outside.md", /\.\./],
    ["logs/../../outside.md", /\.\./],
    ["/etc/passwd", /absolute/],
    ["", /empty/],
    ["logs\\..\\x.md", /backslash/],
    ["a\u0000b.md", /control/],
  ])("refuses %j, naming the field", async (path, message) => {
    temp = await makeTempBrain();
    const error = (() => {
      try {
        temp.brain.resolve(path, "target");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).path).toBe("target");
    expect((error as Error).message).toMatch(message);
  });

  it("refuses symlinks that lead out of the brain, dangling ones included", async () => {
    temp = await makeTempBrain();
    const outside = join(temp.dir, "outside");
    await mkdir(outside);
    await writeFile(join(outside, "secret.md"), "secret");
    await symlink(outside, join(temp.brain.root, "linked-dir"));
    await symlink(join(outside, "secret.md"), join(temp.brain.root, "linked.md"));
    await symlink(join(outside, "not-yet.md"), join(temp.brain.root, "dangling.md"));
    await mkdir(join(temp.brain.root, "inner"));
    await symlink(join(temp.brain.root, "inner"), join(temp.brain.root, "inner-link"));
    expect(() => temp.brain.resolve("linked-dir/secret.md")).toThrow(/symlink/);
    expect(() => temp.brain.resolve("linked-dir/new.md")).toThrow(/symlink/);
    expect(() => temp.brain.resolve("linked.md")).toThrow(/symlink/);
    expect(() => temp.brain.resolve("dangling.md")).toThrow(/symlink/);
    expect(temp.brain.resolve("inner-link/x.md")).toBe(join(temp.brain.root, "inner-link/x.md"));
  });

  it("indexes markdown outside db/ and hidden folders", () => {
    expect(isIndexablePath("logs/2025-01-01.md")).toBe(true);
    expect(isIndexablePath("db/notes.md")).toBe(false);
    expect(isIndexablePath(".git/x.md")).toBe(false);
    expect(isIndexablePath("config/irowclaw.toml")).toBe(false);
  });

  it("gives the daily log path by UTC date", async () => {
    temp = await makeTempBrain();
    expect(temp.brain.dailyLogPath(new Date("2026-03-01T23:30:00-05:00"))).toBe("logs/2026-03-02.md");
  });
});

describe("brain init", () => {
  it("writes the seed 003 layout with starter files that pass their contracts", async () => {
    temp = await makeTempBrain();
    const root = join(temp.dir, "fresh");
    const { created, kept } = await initBrain(root, { agentName: "helper" });
    expect(kept).toEqual([]);
    expect(created).toEqual(
      expect.arrayContaining([
        "soul.md",
        "identity.md",
        "instructions/general.md",
        "memory.md",
        "cron/jobs.toml",
        "config/irowclaw.toml",
        "config/agents/helper.toml",
      ]),
    );
    const read = (p: string) => readFile(join(root, p), "utf8");
    const config = parseTomlConfig(await read("config/irowclaw.toml"), irowclawConfigSchema);
    expect(config.default_agent).toBe("helper");
    expect(config.indexing.embedder).toBe("local");
    const profile = parseTomlConfig(await read("config/agents/helper.toml"), agentProfileSchema);
    expect(profile.retrieval).toEqual({ semantic_weight: 0.7, lexical_weight: 0.3, top_k: 8 });
    expect(parseTomlConfig(await read("cron/jobs.toml"), cronJobsSchema).jobs).toEqual([]);
    expect(BrainLayout.open(root).databaseFile).toBe(join(BrainLayout.open(root).root, "db/ironclaw.db"));
  });

  it("never overwrites an existing file", async () => {
    temp = await makeTempBrain({ "soul.md": "# My own soul\n" });
    const { kept, created } = await initBrain(temp.brain.root);
    expect(kept).toEqual(["soul.md"]);
    expect(created).not.toContain("soul.md");
    expect(await readFile(join(temp.brain.root, "soul.md"), "utf8")).toBe("# My own soul\n");
  });

  it("refuses an agent name that cannot be a file name", async () => {
    temp = await makeTempBrain();
    await expect(initBrain(join(temp.dir, "x"), { agentName: "../evil" })).rejects.toThrow(/agentName/);
  });
});
