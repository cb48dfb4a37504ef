import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedUnits, type WardenUnits } from "../../../test/support/warden-units.js";
import { BrainHistory, createBrainHistorySink, MAX_HISTORY_FILE_BYTES } from "../../attest/index.js";
import type { BrainStateFile, FileOpRequest } from "../../contracts/index.js";
import { createLogger, sha256Hex } from "../../core/index.js";
import { cellBrainReader } from "./cell-brain-reader.js";

// A brain the host cannot read is recorded from what its running cell reports. The cells here are scripted
// guests on the real protocol (fake-cell.ts): an honest one, and ones that lie about paths, sizes and bytes.

const DB = `sha256:${"d".repeat(64)}`;

/** What the scripted cell holds and how it answers: `lie` rewrites its report before it goes out. */
interface Guest {
  files: Map<string, string>;
  lie?: (files: BrainStateFile[]) => BrainStateFile[];
  silent?: boolean;
  release?: () => void;
  reads: string[];
}

let units: WardenUnits | undefined;
afterEach(async () => {
  await units?.close();
  units = undefined;
});

async function start(guest: Guest) {
  const started = await startScriptedUnits(() => ({
    async onQuery(request) {
      if (request.query.kind !== "brain_state")
        return { error: { code: "unsupported", message: "this cell answers brain_state alone" } };
      if (guest.silent)
        return new Promise((answer) => {
          // Answered only once the test has seen the warden give up, so the cell can then stop at once.
          guest.release = () => answer({ error: { code: "failed", message: "too late" } });
        });
      const files = [...guest.files].map(([path, text]) => ({
        path,
        sha256: sha256Hex(Buffer.from(text)),
        size_bytes: Buffer.byteLength(text),
      }));
      return {
        answer: { kind: "brain_state", files: guest.lie ? guest.lie(files) : files, db_snapshot_sha256: DB },
      };
    },
    async onFileOp(request: FileOpRequest) {
      guest.reads.push(request.path);
      const text = guest.files.get(request.path);
      if (text === undefined)
        return { error: { code: "not_found", message: `${request.path} does not exist` } };
      return { content: Buffer.from(text).toString("base64"), encoding: "base64" };
    },
  }));
  units = started.units;
  const lines: string[] = [];
  const logger = createLogger(
    "test",
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  const u = started.units;
  const reader = cellBrainReader({ runningCell: (id) => u.cells.running(id), logger, timeoutMs: 2_000 });
  const sink = createBrainHistorySink({ home: u.home, brainDirOf: () => undefined, readBrain: reader });
  return { u, reader, sink, lines, logger };
}

describe("a brain recorded from its cell's report", () => {
  it("records the reported tree, and later reads only the files whose hash changed", async () => {
    const guest: Guest = {
      files: new Map([
        ["soul.md", "# Soul\n"],
        ["notes/a.md", "a\n"],
      ]),
      reads: [],
    };
    const { u, sink } = await start(guest);
    await u.cells.get("ada");
    const first = await sink.brainChanged({ userId: "ada", cause: "turn 1" });
    expect(first).toMatchObject({ ok: true, entry: { cause: "turn 1" } });
    expect(guest.reads.sort()).toEqual(["notes/a.md", "soul.md"]);

    guest.reads.length = 0;
    guest.files.set("notes/a.md", "a, changed\n");
    guest.files.delete("soul.md");
    guest.files.set("notes/b.md", "b\n");
    const second = await sink.brainChanged({ userId: "ada", cause: "turn 2" });
    expect(second.ok && second.entry?.node.parent_node_id).toBe(first.ok && first.entry?.node.node_id);
    expect(guest.reads.sort()).toEqual(["notes/a.md", "notes/b.md"]);
    const history = BrainHistory.open(u.home, "ada");
    const tree = await history.treeOf(history.head() as string);
    expect(Object.fromEntries([...tree].map(([p, b]) => [p, b.toString()]))).toEqual({
      "notes/a.md": "a, changed\n",
      "notes/b.md": "b\n",
    });
    expect(history.nodes.get(history.head() as string).state_db.snapshot_hash).toBe(DB);
  });

  it.each([
    [
      "a path that leaves the brain",
      (f: BrainStateFile[]) => [...f, { ...(f[0] as BrainStateFile), path: "../x.md" }],
      /\.\. segment/,
    ],
    [
      "a path the history does not keep",
      (f: BrainStateFile[]) => [{ ...(f[0] as BrainStateFile), path: "db/x.md" }],
      /db\/x\.md: not a markdown path/,
    ],
    ["a file reported twice", (f: BrainStateFile[]) => [...f, ...f], /reported twice/],
    [
      "a size past the cap",
      (f: BrainStateFile[]) => f.map((x) => ({ ...x, size_bytes: MAX_HISTORY_FILE_BYTES + 1 })),
      /larger than/,
    ],
    [
      "bytes that do not match the reported hash",
      (f: BrainStateFile[]) => f.map((x) => ({ ...x, sha256: "0".repeat(64) })),
      /do not match/,
    ],
  ])("refuses %s and logs why, recording nothing", async (_name, lie, reason) => {
    const guest: Guest = { files: new Map([["memory.md", "# Memory\n"]]), lie, reads: [] };
    const { u, sink, lines } = await start(guest);
    await u.cells.get("ada");
    const outcome = await sink.brainChanged({ userId: "ada", cause: "turn 1" });
    expect(outcome).toEqual({
      ok: true,
      entry: undefined,
      skipped: "the brain's cell did not report its state",
    });
    expect(BrainHistory.open(u.home, "ada").head()).toBeUndefined();
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; reason?: string; user?: string });
    const refusal = logged.find((l) => l.msg.includes("report of its brain was refused"));
    expect(refusal?.user).toBe("ada");
    expect(refusal?.reason).toMatch(reason);
  });

  it("skips without starting a cell when none runs, and gives up on a cell that never answers", async () => {
    const guest: Guest = { files: new Map([["memory.md", "x\n"]]), reads: [], silent: true };
    const { u, reader, lines, logger } = await start(guest);
    await expect(reader("ada", new Map())).resolves.toBeUndefined();
    expect(u.cells.running("ada")).toBeUndefined();
    expect(lines.join("")).toContain("the user's cell no longer runs");

    await u.cells.get("ada");
    const impatient = cellBrainReader({ runningCell: (id) => u.cells.running(id), logger, timeoutMs: 200 });
    await expect(impatient("ada", new Map())).resolves.toBeUndefined();
    const refused = lines.map((l) => JSON.parse(l) as { msg: string; reason?: string }).at(-1);
    expect(refused?.msg).toContain("report of its brain was refused");
    expect(refused?.reason).toBe("no final reply within 200 ms");
    guest.release?.();
  });
});
