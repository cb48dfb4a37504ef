import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  floodBrain,
  makeTempBrain,
  startLinkFlood,
  type TempBrain,
} from "../../test/support/memory-fixtures.js";
import { IndexQueue, type IndexRequest } from "./index/index-queue.js";
import { type BrainWatcher, watchBrain } from "./watcher.js";

let temp: TempBrain;
let watcher: BrainWatcher | undefined;
afterEach(async () => {
  watcher?.close();
  await temp?.cleanup();
});

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await settle(20);
}

describe("brain watcher", () => {
  it("turns a burst of edits into one debounced request of markdown paths", async () => {
    temp = await makeTempBrain({ "logs/.keep.md": "" });
    const requests: IndexRequest[] = [];
    watcher = watchBrain(temp.brain, (r) => requests.push(r), { debounceMs: 150 });
    await settle(50);
    for (let i = 0; i < 5; i++) await writeFile(join(temp.brain.root, "logs", `${i}.md`), `entry ${i}`);
    await writeFile(join(temp.brain.root, "db", "ironclaw.db-wal"), "x");
    await writeFile(join(temp.brain.root, "notes.txt"), "not markdown");
    await until(() => requests.length > 0);
    await settle(300);
    expect(requests).toHaveLength(1);
    expect([...(requests[0] as string[])].sort()).toEqual([
      "logs/0.md",
      "logs/1.md",
      "logs/2.md",
      "logs/3.md",
      "logs/4.md",
    ]);
  });

  it("reports deletions and files in new folders", async () => {
    temp = await makeTempBrain({ "a.md": "a" });
    const requests: IndexRequest[] = [];
    watcher = watchBrain(temp.brain, (r) => requests.push(r), { debounceMs: 50 });
    await settle(50);
    await rm(join(temp.brain.root, "a.md"));
    await until(() => requests.length > 0);
    expect(requests[0]).toEqual(["a.md"]);
    await mkdir(join(temp.brain.root, "projects", "new"), { recursive: true });
    await settle(100);
    await writeFile(join(temp.brain.root, "projects", "new", "plan.md"), "# Plan");
    await until(() => requests.flat().includes("projects/new/plan.md") || requests.includes("all"));
    expect(requests.flat().includes("projects/new/plan.md") || requests.includes("all")).toBe(true);
  });
});

/** The longest the event loop went without running a 20 ms timer, over `ms`. */
async function longestStall(ms: number): Promise<number> {
  let last = Date.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 20);
  await settle(ms);
  clearInterval(timer);
  return Math.max(longest, Date.now() - last);
}

describe("brain watcher under a flood of link renames", () => {
  // How long node's own recursive watcher stalls under the same flood depends on the machine; it is measured
  // beside this watcher in `npm run bench:memory:watcher`.
  it("keeps the event loop answering, sheds the flood, and still indexes an edit made after it", async () => {
    temp = await floodBrain();
    const requests: IndexRequest[] = [];
    const shed: unknown[] = [];
    watcher = watchBrain(temp.brain, (r) => requests.push(r), {
      debounceMs: 50,
      pauseMs: 300,
      // Below what the flood makes even on a busy host (it did not always reach the default 2000 there).
      maxEventsPerSecond: 200,
      onError: (e) => shed.push(e),
    });
    await settle(200);
    const flood = startLinkFlood(temp.brain.root);
    let stall = 0;
    try {
      stall = await longestStall(3000);
    } finally {
      flood.kill("SIGKILL");
    }
    expect(stall).toBeLessThan(1000);
    // The positive control of this side: the flood was seen, and it was more than the watcher takes.
    expect(shed.map((e) => String(e))).toContainEqual(expect.stringMatching(/brain events in a second/));
    await settle(1500);
    const before = requests.length;
    await writeFile(join(temp.brain.root, "d3", "after.md"), "# After the flood");
    await until(() => requests.slice(before).some((r) => r === "all" || r.includes("d3/after.md")));
    expect(requests.slice(before).some((r) => r === "all" || r.includes("d3/after.md"))).toBe(true);
  }, 20_000);
});

describe("index queue", () => {
  it("merges requests made while a pass runs into one following pass and survives failures", async () => {
    const passes: IndexRequest[] = [];
    const errors: unknown[] = [];
    let release: () => void = () => {};
    const queue = new IndexQueue(
      async (request) => {
        passes.push(request);
        if (passes.length === 1) await new Promise<void>((r) => (release = r));
        if (passes.length === 2) throw new Error("disk full");
      },
      (error) => errors.push(error),
    );
    queue.request(["a.md"]);
    await settle(10);
    queue.request(["b.md"]);
    queue.request(["c.md", "b.md"]);
    release();
    await queue.flush();
    queue.request("all");
    await queue.flush();
    expect(passes).toEqual([["a.md"], ["b.md", "c.md"], "all"]);
    expect(errors.map((e) => (e as Error).message)).toEqual(["disk full"]);
    expect(queue.busy).toBe(false);
  });
});
