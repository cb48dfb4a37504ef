// Idle microVM cells are suspended to disk and resumed where they were: the saved VM is used once, with the
// clock the host gives it, and only beside the very brain disk it was saved with; otherwise the cell boots, and
// the brain (synced before every save) has everything written before the suspend.
import { chmod, mkdtemp, readdir, rm, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CellEvent,
  type CellHandle,
  CellManager,
  createMicrovmBackend,
  readImageStatus,
} from "../../src/cells/index.js";
import { requireTestImage } from "../cells/suite-backends.js";

const paths = requireTestImage();
let home = "";

beforeAll(async () => {
  const manifest = (await readImageStatus(paths)).manifest;
  // The image build compiles the resume helper with the host's C compiler, which CI installs.
  if (manifest?.resume !== "ready")
    throw new Error(`the test image cannot resume cells: ${manifest?.resume}`);
  home = await mkdtemp(join(tmpdir(), "ironclaw-vm-suspend-"));
  await chmod(home, 0o755);
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

const backend = () =>
  createMicrovmBackend({ paths, accel: "auto", allowTcg: true, brainDiskMiB: 64, onWarning: () => {} });

async function write(cell: CellHandle, path: string, content: string): Promise<void> {
  const reply = await cell.call({ type: "FileOpRequest", op: "write", path, content }, { timeoutMs: 60_000 });
  expect(reply.type).toBe("FileOpResult");
}

async function list(cell: CellHandle, path: string): Promise<{ path: string; modified_at?: string }[]> {
  const reply = await cell.call({ type: "FileOpRequest", op: "list", path }, { timeoutMs: 60_000 });
  if (reply.type !== "FileOpResult") throw new Error(`list answered ${reply.type}`);
  return reply.entries ?? [];
}

const saved = (userDir: string) =>
  readdir(userDir).then((names) => names.filter((n) => n.startsWith("cell.state")));

describe("suspending a microVM cell", () => {
  it("resumes it once, where it was, with the host's clock", async () => {
    const cells = backend();
    const spec = { userId: "sleeper", userDir: join(home, "sleeper"), handler: "echo" as const };
    const cell = await cells.start(spec);
    expect(cell.resumed).toBeUndefined();
    await write(cell, "notes/before.md", "written before the suspend\n");
    const exit = await cell.suspend?.();
    expect(exit?.reason).toBe("suspended");
    expect((await saved(spec.userDir)).sort()).toEqual(["cell.state", "cell.state.json"]);
    // The guest's whole memory: the warden's alone.
    expect((await stat(join(spec.userDir, "cell.state"))).mode & 0o777).toBe(0o600);
    // Long enough that a guest clock left where it stood would be visibly behind.
    await new Promise((r) => setTimeout(r, 6_000));

    const again = await cells.start(spec);
    try {
      expect(again.resumed).toBe(true);
      // Taken once: nothing is left to resume a second VM from.
      expect(await saved(spec.userDir)).toEqual([]);
      await write(again, "notes/after.md", "written after the resume\n");
      const entries = await list(again, "notes");
      expect(entries.map((e) => e.path).sort()).toEqual(["notes/after.md", "notes/before.md"]);
      const after = entries.find((e) => e.path === "notes/after.md");
      const lag = Date.now() - Date.parse(after?.modified_at ?? "");
      expect(Math.abs(lag)).toBeLessThan(3_000);
      // The warden greets every cell it gets; a resumed runtime still answers.
      const ready = await again.call({ type: "Hello", providers: [] }, { timeoutMs: 60_000 });
      expect(ready.type).toBe("Ready");
    } finally {
      await again.stop();
    }
    // A stop is a stop: the next start boots.
    const third = await cells.start(spec);
    try {
      expect(third.resumed).toBeUndefined();
      expect((await list(third, "notes")).length).toBe(2);
    } finally {
      await third.stop();
    }
  });

  it("boots instead when the brain disk changed since the save, and the brain has what was written", async () => {
    const cells = backend();
    const spec = { userId: "touched", userDir: join(home, "touched"), handler: "echo" as const };
    const cell = await cells.start(spec);
    await write(cell, "notes/kept.md", "synced before the save\n");
    expect((await cell.suspend?.())?.reason).toBe("suspended");
    // Something else wrote the disk (here only its mtime): the saved memory no longer matches it.
    const brain = join(spec.userDir, "brain.ext4");
    const before = await stat(brain);
    await utimes(brain, before.atime, new Date(before.mtimeMs + 10_000));
    const again = await cells.start(spec);
    try {
      expect(again.resumed).toBeUndefined();
      expect(await saved(spec.userDir)).toEqual([]);
      expect((await list(again, "notes")).map((e) => e.path)).toEqual(["notes/kept.md"]);
    } finally {
      await again.stop();
    }
  });

  it("is what the cell manager does with an idle cell; the next use resumes it", async () => {
    const manager = new CellManager({
      backend: backend(),
      usersDir: home,
      idleStopMs: 1_500,
      spec: { handler: "echo" },
    });
    const events: CellEvent[] = [];
    manager.onEvent((e) => events.push(e));
    try {
      const cell = await manager.get("idler");
      await write(cell, "notes/idle.md", "then nothing\n");
      const deadline = Date.now() + 120_000;
      while (!events.some((e) => e.kind === "stopped") && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      expect(events.find((e) => e.kind === "stopped")).toMatchObject({
        userId: "idler",
        why: "idle",
        suspended: true,
      });
      expect((await saved(join(home, "idler"))).sort()).toEqual(["cell.state", "cell.state.json"]);
      const back = await manager.get("idler");
      expect(back.resumed).toBe(true);
      expect(events.flatMap((e) => (e.kind === "started" ? [e.resumed] : []))).toEqual([false, true]);
      expect((await list(back, "notes")).map((e) => e.path)).toEqual(["notes/idle.md"]);
    } finally {
      await manager.stopAll();
    }
  });

  it("is what a warden's shutdown does with its cells; the next warden resumes them", async () => {
    const first = new CellManager({ backend: backend(), usersDir: home, spec: { handler: "echo" } });
    const cell = await first.get("shifter");
    await write(cell, "notes/shift.md", "before the restart\n");
    await first.stopAll();
    expect((await saved(join(home, "shifter"))).sort()).toEqual(["cell.state", "cell.state.json"]);
    const second = new CellManager({ backend: backend(), usersDir: home, spec: { handler: "echo" } });
    try {
      const back = await second.get("shifter");
      expect(back.resumed).toBe(true);
      expect((await list(back, "notes")).map((e) => e.path)).toEqual(["notes/shift.md"]);
      // A stop asked for is a stop: nothing is saved.
      await second.stop("shifter");
      expect(await saved(join(home, "shifter"))).toEqual([]);
    } finally {
      await second.stopAll();
    }
  });
});
