import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTestEmbedder, makeTempBrain, type TempBrain } from "../../../test/support/memory-fixtures.js";
import { InvalidInputError } from "../../core/index.js";
import { IndexStore } from "../index/index-store.js";
import { Indexer } from "../index/indexer.js";
import { HybridSearch } from "./hybrid-search.js";
import { recencyFactor } from "./ranking-recency.js";

// Recency, diversity and the floor on a real index: a brain with the same fact written twice (a locker code
// that changed), a physio routine copied into six daily logs, and the note that answers what the routine is.

let temp: TempBrain;
let store: IndexStore;
let search: HybridSearch;
const TODAY = new Date("2025-06-01T09:00:00Z");
const ROUTINE =
  "Physio routine for the knee: wall squats, glute bridges and step-downs, three rounds. Knee felt fine.";

beforeAll(async () => {
  const files: Record<string, string> = {
    "logs/2025-01-10.md": "# 2025-01-10\n\n## Gym\n\nThe gym locker code is 4471.\n",
    "logs/2025-05-20.md":
      "# 2025-05-20\n\n## Gym\n\nThe gym locker code is now 8812, they changed every lock.\n",
    "memory.md": "# Memory\n\n## Gym\n\nI go to the climbing gym on Tuesdays and Sundays.\n",
    "health/knee.md":
      "# Knee\n\n## Exercises\n\nAnouk prescribed wall squats and glute bridges twice a day for six weeks, " +
      "and no running until the pain stays under three out of ten.\n",
    "recipes/soup.md":
      "# Soup\n\n## Pea soup\n\nSplit peas, smoked sausage, celeriac, leek; simmer two hours.\n",
  };
  for (let day = 1; day <= 6; day++)
    files[`logs/2025-02-0${day}.md`] = `# 2025-02-0${day}\n\n## Physio\n\n${ROUTINE}\n`;
  temp = await makeTempBrain(files);
  store = IndexStore.open(temp.brain.databaseFile);
  const embedder = await loadTestEmbedder();
  await new Indexer(temp.brain, store, embedder).indexAll();
  search = new HybridSearch(store, embedder, undefined, { clock: () => TODAY });
});
afterAll(async () => {
  store.close();
  await temp.cleanup();
});

const paths = (hits: Array<{ path: string }>) => hits.map((h) => h.path);

describe("recency", () => {
  it("puts the newer of two matching notes first, and says by how much", async () => {
    const query = "gym locker code";
    const undecayed = await search.search(query, { decay: false, mmr: false });
    // Without decay the older note wins on words alone: what decay changes is measured, not assumed.
    expect(paths(undecayed).indexOf("logs/2025-01-10.md")).toBeLessThan(
      paths(undecayed).indexOf("logs/2025-05-20.md"),
    );
    expect(undecayed.find((h) => h.path === "logs/2025-05-20.md")?.explanation.recency).toEqual({
      source: "dated",
      date: "2025-05-20",
      ageDays: 12,
      factor: 1,
    });
    const decayed = await search.search(query, { halfLifeDays: 30, decayFloor: 0.5, mmr: false });
    expect(paths(decayed).indexOf("logs/2025-05-20.md")).toBeLessThan(
      paths(decayed).indexOf("logs/2025-01-10.md"),
    );
    const newer = decayed.find((h) => h.path === "logs/2025-05-20.md");
    expect(newer?.explanation.recency).toEqual({
      source: "dated",
      date: "2025-05-20",
      ageDays: 12,
      halfLifeDays: 30,
      factor: recencyFactor(12, 30, 0.5),
    });
    expect(newer?.score).toBeCloseTo((newer?.explanation.fused ?? 0) * recencyFactor(12, 30, 0.5), 10);
    expect(newer?.explanation.summary).toMatch(/dated 2025-05-20, 12 days old, half-life 30 d/);
    const memory = decayed.find((h) => h.path === "memory.md");
    expect(memory?.explanation.recency).toEqual({ source: "evergreen", factor: 1 });
  });

  it("searches the brain as it was on an as-of date: later notes are left out, ages count from it", async () => {
    const hits = await search.search("gym locker code", {
      asOf: new Date("2025-03-01T00:00:00Z"),
      mmr: false,
    });
    expect(paths(hits)).toContain("logs/2025-01-10.md");
    expect(paths(hits)).not.toContain("logs/2025-05-20.md");
    expect(hits.find((h) => h.path === "logs/2025-01-10.md")?.explanation.recency.ageDays).toBe(50);
  });

  it("refuses an invalid as-of date, naming it", async () => {
    await expect(search.search("gym", { asOf: new Date("not a date") })).rejects.toThrow(InvalidInputError);
    await expect(search.search("gym", { asOf: new Date("not a date") })).rejects.toThrow(
      /^asOf: must be a valid date/,
    );
    await expect(search.search("gym", { halfLifeDays: -1 })).rejects.toThrow(/^halfLifeDays/);
  });
});

describe("diversity", () => {
  it("lets the answer past six copies of a daily entry", async () => {
    const query = "physio routine for the knee: wall squats, glute bridges, step-downs";
    const plain = await search.search(query, { mmr: false, topK: 5 });
    // The probe: without MMR the copies fill the top 5 and the note is not there.
    expect(paths(plain).filter((p) => p.startsWith("logs/2025-02-0"))).toHaveLength(5);
    expect(paths(plain)).not.toContain("health/knee.md");
    const diverse = await search.search(query, { mmrLambda: 0.5, topK: 5 });
    expect(paths(diverse).slice(0, 2)).toContain("health/knee.md");
    const note = diverse.find((h) => h.path === "health/knee.md");
    expect(note?.explanation.mmr?.rankBefore).toBeGreaterThan(5);
    expect(note?.explanation.summary).toMatch(/MMR λ 0\.5: similarity 0\.\d+ to a hit above, #\d+ by score/);
  });
});

describe("the score floor", () => {
  it("drops weak hits, keeps an exact keyword hit below it, and never returns nothing", async () => {
    const weak = await search.search("quantum chromodynamics on a lattice", { minScore: 0.99 });
    expect(weak).toHaveLength(1);
    expect(weak[0]?.explanation.floor).toEqual({ minScore: 0.99, passed: "best" });
    const keyword = await search.search("4471", { minScore: 0.99 });
    expect(paths(keyword)).toEqual(["logs/2025-01-10.md"]);
    expect(keyword[0]?.score).toBeLessThan(0.99);
    expect(keyword[0]?.explanation.floor.passed).toBe("keyword");
    expect(keyword[0]?.explanation.coverage).toBeGreaterThanOrEqual(0.5);
    const unfloored = await search.search("quantum chromodynamics on a lattice", { minScore: 0, topK: 5 });
    expect(unfloored).toHaveLength(5);
  });
});
