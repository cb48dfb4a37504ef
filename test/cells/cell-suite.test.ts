import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CellBackend, CellHandle } from "../../src/cells/index.js";
import type { ProtocolMessage } from "../../src/contracts/index.js";
import { answers, shellIn } from "./cell-shell.js";
import { ESCAPE_ATTEMPTS, type EscapeScene } from "./escape-attempts.js";
import { SUITE_BACKENDS, type SuiteBackend } from "./suite-backends.js";

// The default run covers process and bwrap; `npm run test:microvm` sets this to microvm.
const names = (process.env.IRONCLAW_TEST_BACKENDS ?? "process,bwrap").split(",").filter(Boolean);
const backends: SuiteBackend[] = names.map((name) => {
  const make = SUITE_BACKENDS[name];
  if (!make) throw new Error(`unknown backend ${name} in IRONCLAW_TEST_BACKENDS`);
  return make();
});

const RUN_AS = { inmate: { uid: 61_101, gid: 61_101 }, bystander: { uid: 61_102, gid: 61_102 } };

describe.each(backends)("$name cell", (entry) => {
  let home = "";
  let backend: CellBackend;
  let inmate: CellHandle | undefined;
  let bystander: CellHandle | undefined;
  const gone = new WeakSet<CellHandle>();
  const start = async (user: "inmate" | "bystander") => {
    const cell = await backend.start({
      userId: user,
      userDir: join(home, "users", user),
      handler: "shell",
      startTimeoutMs: entry.startTimeoutMs,
      // Under a root warden each user's bwrap cell is its own host uid; other backends ignore this.
      runAs: RUN_AS[user],
    });
    void cell.exited.then(() => gone.add(cell));
    return cell;
  };
  /** The inmate, restarted when an earlier test ended it (crash, bomb, garbage): the brain stays. */
  const liveInmate = async (): Promise<CellHandle> => {
    if (!inmate || inmate.peer.isClosed || gone.has(inmate)) {
      await inmate?.stop({ timeoutMs: 2_000 });
      inmate = await start("inmate");
    }
    return inmate;
  };
  const marker = `bystander-marker-${process.pid}`;
  const secretText = `host-secret-${process.pid}-${Date.now()}`;
  const scene: EscapeScene = {
    cell: () => {
      if (!inmate) throw new Error("no inmate");
      return inmate;
    },
    bystander: () => {
      if (!bystander) throw new Error("no bystander");
      return bystander;
    },
    secretFile: "",
    secretText,
    bystanderBrainHostPath: "",
    bystanderMarker: marker,
    caps: entry.caps,
  };

  beforeAll(async () => {
    if (entry.unavailable) return;
    home = await mkdtemp(join(tmpdir(), `ironclaw-${entry.name}-suite-`));
    // A root warden runs bwrap as an unprivileged uid, which must be able to reach the brain directories.
    await chmod(home, 0o755);
    backend = entry.make(home);
    scene.secretFile = join(home, "host-secret.txt");
    scene.bystanderBrainHostPath = entry.brainHostPath(join(home, "users", "bystander"));
    await writeFile(scene.secretFile, secretText, { mode: 0o644 });
    [inmate, bystander] = await Promise.all([start("inmate"), start("bystander")]);
    const wrote = await bystander.call({
      type: "FileOpRequest",
      op: "write",
      path: `${marker}.md`,
      content: marker,
    });
    expect(wrote).toMatchObject({ type: "FileOpResult" });
  }, 240_000);

  afterAll(async () => {
    await Promise.all([inmate?.stop({ timeoutMs: 5_000 }), bystander?.stop({ timeoutMs: 5_000 })]);
    if (home) await rm(home, { recursive: true, force: true });
  }, 60_000);

  if (entry.unavailable) {
    it.skip(`skipped: ${entry.unavailable}`, () => {});
    return;
  }

  describe("conformance", () => {
    it("announces itself and answers a first request", async () => {
      expect(await answers(await liveInmate())).toBe(true);
    });

    it("streams a turn as deltas then one TurnComplete, all answering the UserMessage", async () => {
      const cell = await liveInmate();
      const replies: ProtocolMessage[] = [];
      let sentId = -1;
      const off = cell.onEvent((m) => {
        if (m.reply_to !== undefined && m.reply_to === sentId) replies.push(m);
      });
      const stream = cell.request({ type: "UserMessage", text: "echo hello from the cell" });
      const first = await stream.next();
      sentId = first.value?.reply_to ?? -1;
      const rest: ProtocolMessage[] = [];
      for await (const m of stream) rest.push(m);
      off();
      const all = [first.value as ProtocolMessage, ...rest];
      expect(all.map((m) => m.type)).toEqual(["StreamDelta", "TurnComplete"]);
      expect(all[0]).toMatchObject({ type: "StreamDelta", delta: "hello from the cell\n" });
      const ids = all.map((m) => m.msg_id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(new Set(all.map((m) => m.reply_to)).size).toBe(1);
    });

    it.runIf(entry.name === "microvm")(
      "embeds text offline inside the VM with the word table the image carries",
      async () => {
        const script =
          "import('/opt/ironclaw/dist/memory/index.js')" +
          ".then((m) => m.BuiltinEmbedder.load({ dataDir: process.env.IRONCLAW_HOME }))" +
          ".then((e) => e.embed(['sovereign memory'])).then(([v]) => console.log('dims=' + v.length))";
        const run = await shellIn(await liveInmate(), `node -e "${script}"`);
        expect(run.stdout.trim()).toMatch(/^dims=\d+$/);
      },
    );

    it("writes, lists and reads markdown in the brain", async () => {
      const cell = await liveInmate();
      const text = "# Today\n\n- wrote through the protocol\n";
      expect(
        await cell.call({ type: "FileOpRequest", op: "write", path: "notes/today.md", content: text }),
      ).toMatchObject({
        type: "FileOpResult",
        op: "write",
      });
      const list = await cell.call({ type: "FileOpRequest", op: "list", path: "notes" });
      expect(list.type === "FileOpResult" && list.entries?.map((e) => e.path)).toEqual(["notes/today.md"]);
      const read = await cell.call({ type: "FileOpRequest", op: "read", path: "notes/today.md" });
      expect(read).toMatchObject({ type: "FileOpResult", content: text });
    });

    it("refuses file operations that leave the brain or touch its database", async () => {
      const cell = await liveInmate();
      expect(await cell.call({ type: "FileOpRequest", op: "read", path: "../secret.md" })).toMatchObject({
        type: "Error",
        code: "invalid_message",
      });
      await shellIn(cell, "ln -sfn / root-link");
      const viaLink = await cell.call({ type: "FileOpRequest", op: "read", path: "root-link/etc/hostname" });
      expect(viaLink).toMatchObject({ type: "FileOpResult", error: { code: "forbidden" } });
      const dbWrite = await cell.call({
        type: "FileOpRequest",
        op: "write",
        path: "db/evil.md",
        content: "x",
      });
      expect(dbWrite).toMatchObject({ type: "FileOpResult", error: { code: "forbidden" } });
      await shellIn(cell, "rm -f root-link");
    });

    it("runs a triggered job and reports its status until it is done", async () => {
      const cell = await liveInmate();
      const statuses: string[] = [];
      for await (const m of cell.request({ type: "JobTrigger", job_id: "morning-brief" })) {
        if (m.type === "JobStatus") statuses.push(m.status);
      }
      expect(statuses).toEqual(["running", "succeeded"]);
    });

    it("answers a frame that is not JSON with an Error frame and keeps serving", async () => {
      const cell = await liveInmate();
      const errors: string[] = [];
      const off = cell.onEvent((m) => {
        if (m.type === "Error") errors.push(m.code);
      });
      cell.peer.writeRaw(Buffer.from([0, 0, 0, 3, 0x7b, 0x7b, 0x7b]));
      expect(await answers(cell)).toBe(true);
      off();
      expect(errors).toContain("malformed_frame");
    });

    it("reports its host memory and channel counters", async () => {
      const stats = await (await liveInmate()).stats();
      expect(stats.backend).toBe(entry.name);
      expect(stats.hostRssBytes).toBeGreaterThan(0);
      expect(stats.channel.framesIn).toBeGreaterThan(0);
    });

    it("keeps the brain across a graceful stop and a restart", async () => {
      const cell = await liveInmate();
      await cell.call({
        type: "FileOpRequest",
        op: "write",
        path: "memory.md",
        content: "# Memory\n\nkept\n",
      });
      const exit = await cell.stop();
      expect(exit.requested).toBe(true);
      const again = await liveInmate();
      expect(again).not.toBe(cell);
      expect(await again.call({ type: "FileOpRequest", op: "read", path: "memory.md" })).toMatchObject({
        content: "# Memory\n\nkept\n",
      });
    }, 180_000);

    it("reports a crash as an exit nobody asked for", async () => {
      const cell = await liveInmate();
      void cell.call({ type: "UserMessage", text: "!exit 3" }).catch(() => undefined);
      const exit = await cell.exited;
      expect(exit.requested).toBe(false);
    }, 120_000);
  });

  describe("escape suite", () => {
    for (const attempt of ESCAPE_ATTEMPTS) {
      const protocolLevel = attempt.name.includes("frame");
      if (!backend?.isolated && entry.name === "process" && attempt.harmsUnisolatedHost) {
        it.skip(`${attempt.name} (process backend: unisolated, not attempted on the host)`, () => {});
        console.warn(
          `[process cell] skipping "${attempt.name}": the process backend has no isolation to test`,
        );
        continue;
      }
      it(attempt.name, async () => {
        await liveInmate();
        const result = await attempt.run(scene);
        console.info(
          `[${entry.name} cell] ${attempt.name}: ${result.contained ? "contained" : "NOT contained"} — ${result.evidence}`,
        );
        if (entry.name === "process" && !protocolLevel) {
          // Honest reporting: the process backend must be seen to leak, and must say it is unisolated.
          expect(backend.isolated).toBe(false);
          expect(result.contained).toBe(false);
        } else {
          expect(result.contained, result.evidence).toBe(true);
        }
        expect(await answers(scene.bystander()), "the bystander cell keeps serving").toBe(true);
      }, 240_000);
    }
  });
});
