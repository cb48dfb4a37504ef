import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CellBackend,
  CellCrashLoopError,
  type CellEvent,
  CellManager,
  createProcessBackend,
  defaultRuntime,
  WarmPool,
} from "../../src/cells/index.js";

/** The process backend (fast, no isolation needed here), counting how many cells it really started. */
function countingBackend(): CellBackend & { starts: number } {
  const inner = createProcessBackend({ runtime: defaultRuntime(), onWarning: () => {} });
  const counted = {
    name: inner.name,
    isolated: inner.isolated,
    starts: 0,
    start(spec: Parameters<CellBackend["start"]>[0]) {
      counted.starts++;
      return inner.start(spec);
    },
  };
  return counted;
}

function waitFor(manager: CellManager, kind: CellEvent["kind"]): Promise<CellEvent> {
  return new Promise((resolve) => {
    const off = manager.onEvent((e) => {
      if (e.kind === kind) {
        off();
        resolve(e);
      }
    });
  });
}

let usersDir = "";
let manager: CellManager | undefined;
beforeEach(async () => {
  usersDir = await mkdtemp(join(tmpdir(), "ironclaw-manager-"));
});
afterEach(async () => {
  await manager?.stopAll();
  manager = undefined;
  await rm(usersDir, { recursive: true, force: true });
});

describe("cell manager", () => {
  it("starts the next cell for a user only once the one being stopped has let go of the brain", async () => {
    const backend = countingBackend();
    manager = new CellManager({ backend, usersDir, spec: { handler: "echo" } });
    const first = await manager.get("ada");
    let firstGone = false;
    void first.exited.then(() => {
      firstGone = true;
    });
    const starts: boolean[] = [];
    const start = backend.start;
    backend.start = (spec) => {
      starts.push(firstGone);
      return start(spec);
    };
    const stopping = manager.stop("ada", "idle");
    // A message arriving while the idle stop runs.
    const next = await manager.get("ada");
    const exit = await stopping;
    expect(exit?.requested).toBe(true);
    expect(next).not.toBe(first);
    expect(backend.starts).toBe(2);
    // The first had exited before the second was started.
    expect(starts).toEqual([true]);
    const reply = await next.call({ type: "FileOpRequest", op: "list", path: "." });
    expect(reply.type).toBe("FileOpResult");
    expect(manager.cell("ada")).toBe(next);
  });

  it("starts a user's cell on first use and reuses it, sharing one start between concurrent callers", async () => {
    const backend = countingBackend();
    manager = new CellManager({ backend, usersDir, spec: { handler: "echo" } });
    const [a, b] = await Promise.all([manager.get("ada"), manager.get("ada")]);
    expect(a).toBe(b);
    expect(await manager.get("ada")).toBe(a);
    expect(backend.starts).toBe(1);
    expect(manager.list()).toEqual([{ userId: "ada", backend: "process", restarts: 0 }]);
  });

  it("hands out a pre-booted cell from the warm pool without starting another", async () => {
    const backend = countingBackend();
    const warmPool = new WarmPool({ backend, usersDir, size: 2, spec: { handler: "echo" } });
    await warmPool.prewarm(["ada", "bob", "cy"]);
    expect(warmPool.warmUsers.sort()).toEqual(["ada", "bob"]);
    manager = new CellManager({ backend, usersDir, warmPool, spec: { handler: "echo" } });
    const started = waitFor(manager, "started");
    const cell = await manager.get("ada");
    expect(await started).toEqual({ kind: "started", userId: "ada", warm: true, resumed: false });
    expect(backend.starts).toBe(2);
    const reply = await cell.call({ type: "UserMessage", text: "warm hello" });
    expect(reply).toMatchObject({ type: "TurnComplete", text: "warm hello" });
  });

  it("stops a cell that has been idle", async () => {
    manager = new CellManager({
      backend: countingBackend(),
      usersDir,
      idleStopMs: 300,
      spec: { handler: "echo" },
    });
    const stopped = waitFor(manager, "stopped");
    const cell = await manager.get("ada");
    expect(await stopped).toEqual({ kind: "stopped", userId: "ada", why: "idle", suspended: false });
    expect((await cell.exited).requested).toBe(true);
    expect(manager.list()).toEqual([]);
  });

  it("restarts a crashed cell with its brain intact", async () => {
    manager = new CellManager({ backend: countingBackend(), usersDir, spec: { handler: "shell" } });
    const cell = await manager.get("ada");
    await cell.call({
      type: "FileOpRequest",
      op: "write",
      path: "memory.md",
      content: "# Memory\n\nsurvives\n",
    });
    const restarted = waitFor(manager, "restarted");
    void cell.call({ type: "UserMessage", text: "!exit 9" }).catch(() => undefined);
    expect(await restarted).toMatchObject({ kind: "restarted", userId: "ada", attempt: 1 });
    const again = await manager.get("ada");
    expect(again).not.toBe(cell);
    expect(await again.call({ type: "FileOpRequest", op: "read", path: "memory.md" })).toMatchObject({
      content: "# Memory\n\nsurvives\n",
    });
  });

  it("gives up on a user whose cell keeps crashing", async () => {
    manager = new CellManager({
      backend: countingBackend(),
      usersDir,
      maxRestarts: 1,
      spec: { handler: "shell" },
    });
    const gaveUp = waitFor(manager, "gave_up");
    const first = await manager.get("ada");
    void first.call({ type: "UserMessage", text: "!exit 1" }).catch(() => undefined);
    await waitFor(manager, "restarted");
    const second = await manager.get("ada");
    void second.call({ type: "UserMessage", text: "!exit 1" }).catch(() => undefined);
    expect(await gaveUp).toMatchObject({ kind: "gave_up", userId: "ada" });
    expect(manager.list()).toEqual([]);
  });

  it("holds a user whose cell keeps crashing, saying how it ended, until released", async () => {
    const backend = countingBackend();
    manager = new CellManager({ backend, usersDir, maxRestarts: 1, spec: { handler: "shell" } });
    const gaveUp = waitFor(manager, "gave_up");
    const first = await manager.get("ada");
    void first.call({ type: "UserMessage", text: "!exit 7" }).catch(() => undefined);
    await waitFor(manager, "restarted");
    void (await manager.get("ada")).call({ type: "UserMessage", text: "!exit 7" }).catch(() => undefined);
    const event = await gaveUp;
    expect(event).toMatchObject({ kind: "gave_up", error: expect.stringMatching(/exit code 7/) });
    const starts = backend.starts;
    const held = await manager.get("ada").catch((error: unknown) => error);
    expect(held).toBeInstanceOf(CellCrashLoopError);
    expect((held as CellCrashLoopError).failure).toMatchObject({ crashes: 2, exit: { code: 7 } });
    // Five minutes by default, the first time.
    const wait = Date.parse((held as CellCrashLoopError).failure.retryAt) - Date.now();
    expect(wait).toBeGreaterThan(4 * 60_000);
    expect(backend.starts).toBe(starts);
    expect(manager.failure("ada")?.retryAt).toBeDefined();

    expect(manager.release("ada")).toBe(true);
    const again = await manager.get("ada");
    expect(backend.starts).toBe(starts + 1);
    expect(await again.call({ type: "UserMessage", text: "echo up" })).toMatchObject({
      type: "TurnComplete",
    });
    expect(manager.failure("ada")).toBeUndefined();
  });

  it("tries a held cell once after its cooldown, and holds it twice as long when it crashes again", async () => {
    manager = new CellManager({
      backend: countingBackend(),
      usersDir,
      maxRestarts: 0,
      crashCooldownMs: 300,
      spec: { handler: "shell" },
    });
    const first = await manager.get("ada");
    const gaveUp = waitFor(manager, "gave_up");
    void first.call({ type: "UserMessage", text: "!exit 3" }).catch(() => undefined);
    await gaveUp;
    await expect(manager.get("ada")).rejects.toBeInstanceOf(CellCrashLoopError);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const retried = await manager.get("ada");
    const again = waitFor(manager, "gave_up");
    void retried.call({ type: "UserMessage", text: "!exit 3" }).catch(() => undefined);
    const second = (await again) as Extract<CellEvent, { kind: "gave_up" }>;
    const wait = Date.parse(second.retryAt ?? "") - Date.now();
    expect(wait).toBeGreaterThan(400);
    expect(wait).toBeLessThanOrEqual(600);
  });

  it("stops every cell gracefully on shutdown", async () => {
    manager = new CellManager({ backend: countingBackend(), usersDir, spec: { handler: "echo" } });
    const cells = await Promise.all([manager.get("ada"), manager.get("bob")]);
    await manager.stopAll();
    for (const cell of cells) expect((await cell.exited).requested).toBe(true);
  });
});
