import { readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadTestEmbedder, makeTempBrain, type TempBrain } from "../../test/support/memory-fixtures.js";
import { ConfigError, createLogger } from "../core/index.js";
import { BrainMemory } from "./brain-memory.js";
import { initBrain } from "./brain-starter.js";
import type { BuiltinEmbedder } from "./embedders/builtin-embedder.js";

let embedder: BuiltinEmbedder;
beforeAll(async () => {
  embedder = await loadTestEmbedder();
});

let temp: TempBrain;
let memory: BrainMemory | undefined;
afterEach(async () => {
  await memory?.close();
  memory = undefined;
  await temp?.cleanup();
});

async function openBrain() {
  temp = await makeTempBrain();
  await initBrain(temp.brain.root);
  memory = await BrainMemory.open(temp.brain.root, {
    embedder,
    logger: createLogger("test", { level: "silent" }),
  });
  return memory;
}

describe("remember and recall", () => {
  it("appends to today's log as its own section and recalls it straight away", async () => {
    const m = await openBrain();
    await m.index();
    const now = new Date("2026-05-04T09:15:00Z");
    const first = await m.remember("Booked the dentist for the 12th at 10:00.", { now });
    const second = await m.remember("Parcel from Lisbon arrived; it was the espresso grinder.", { now });
    expect(first).toEqual({ path: "logs/2026-05-04.md", startLine: 3, endLine: 5 });
    expect(second).toEqual({ path: "logs/2026-05-04.md", startLine: 7, endLine: 9 });
    const log = await readFile(join(temp.brain.root, first.path), "utf8");
    expect(log).toBe(
      "# 2026-05-04\n\n## 2026-05-04 09:15:00 UTC\n\nBooked the dentist for the 12th at 10:00.\n\n" +
        "## 2026-05-04 09:15:00 UTC\n\nParcel from Lisbon arrived; it was the espresso grinder.\n",
    );
    const hits = await m.recall("coffee grinder delivery", { topK: 1 });
    expect(hits[0]).toMatchObject({ path: "logs/2026-05-04.md", startLine: 7, endLine: 9 });
  });

  it("appends through no symlink: memory.md or logs/ swapped for a link to config/ is refused, config kept", async () => {
    const m = await openBrain();
    const root = temp.brain.root;
    const config = join(root, "config/irowclaw.toml");
    const before = await readFile(config, "utf8");
    await rm(join(root, "memory.md"));
    await symlink(config, join(root, "memory.md"));
    await expect(m.remember("[tools]\negress = 'allow'", { target: "memory" })).rejects.toThrow(/symlink/);
    await rm(join(root, "logs"), { recursive: true, force: true });
    await symlink(join(root, "config"), join(root, "logs"));
    await expect(m.remember("planted", { now: new Date("2026-05-04T09:15:00Z") })).rejects.toThrow(/symlink/);
    expect(await readFile(config, "utf8")).toBe(before);
    expect(await readdir(join(root, "config"))).not.toContain("2026-05-04.md");
  });

  it("puts durable facts in memory.md under their title, with headings in the text defused", async () => {
    const m = await openBrain();
    const remembered = await m.remember("# Not a heading\nPrefers tea over coffee.", {
      target: "memory",
      title: "Drinks",
    });
    expect(remembered.path).toBe("memory.md");
    const text = await readFile(join(temp.brain.root, "memory.md"), "utf8");
    expect(text.endsWith("\n## Drinks\n\n**Not a heading**\nPrefers tea over coffee.\n")).toBe(true);
    const lines = text.split("\n");
    expect(lines[remembered.startLine - 1]).toBe("## Drinks");
    expect(lines[remembered.endLine - 1]).toBe("Prefers tea over coffee.");
    const hits = await m.recall("what does the user like to drink", { topK: 2 });
    expect(hits.map((h) => h.headings.at(-1))).toContain("Drinks");
  });

  it("refuses empty, oversized and misdirected entries by field", async () => {
    const m = await openBrain();
    await expect(m.remember("   ")).rejects.toThrow(/text: must not be empty/);
    await expect(m.remember("x".repeat(40_000))).rejects.toThrow(/text: must be at most/);
    await expect(m.remember("x", { target: "soul" as "log" })).rejects.toThrow(/target/);
  });
});

describe("brain memory", () => {
  it("reports its status", async () => {
    const m = await openBrain();
    expect(m.status()).toMatchObject({ files: 0, chunks: 0, lastIndexedAt: null, compactions: 0 });
    const before = new Date().toISOString();
    await m.index();
    const status = m.status();
    expect(status.lastIndexedAt !== null && status.lastIndexedAt >= before).toBe(true);
    expect(status).toMatchObject({
      files: 4,
      embedder: `builtin/${embedder.model}/128`,
      embedderStale: false,
    });
    expect(status.chunks).toBeGreaterThan(4);
    expect(status.databaseBytes).toBeGreaterThan(0);
  });

  it("takes retrieval weights and top_k from the agent profile", async () => {
    temp = await makeTempBrain();
    await initBrain(temp.brain.root, { agentName: "digger" });
    const profile = join(temp.brain.root, "config/agents/digger.toml");
    await writeFile(profile, (await readFile(profile, "utf8")).replace("top_k = 8", "top_k = 2"));
    memory = await BrainMemory.open(temp.brain.root, { embedder });
    expect(memory.settings.retrieval).toMatchObject({ semanticWeight: 0.7, lexicalWeight: 0.3, topK: 2 });
    await memory.index();
    // min_score 0: the starter brain has few chunks about "rules", and the floor would drop the weaker one.
    expect(await memory.recall("rules", { minScore: 0 })).toHaveLength(2);
  });

  it("names the file, line and key of an invalid config", async () => {
    temp = await makeTempBrain({
      "config/irowclaw.toml": 'default_agent = "a"\n[indexing]\nchunk_max_bytes = 12\n',
    });
    const error = await BrainMemory.open(temp.brain.root, { embedder }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/irowclaw\.toml:3: indexing\.chunk_max_bytes/);
  });

  it("keeps the index fresh while watching", async () => {
    const m = await openBrain();
    m.watch();
    await m.flush();
    await writeFile(
      join(temp.brain.root, "instructions/travel.md"),
      "# Travel\n\nAlways book aisle seats.\n",
    );
    const deadline = Date.now() + 10_000;
    let found = false;
    while (!found && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      await m.flush();
      found = (await m.search("aisle seats", { mode: "lexical" })).length > 0;
    }
    expect(found).toBe(true);
  });
});
