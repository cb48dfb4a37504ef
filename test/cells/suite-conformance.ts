import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CellHandle } from "../../src/cells/index.js";
import type { ProtocolMessage } from "../../src/contracts/index.js";
import { ironclawHome } from "../../src/core/index.js";
import { answers, shellIn } from "./cell-shell.js";
import type { SuiteBackend } from "./suite-backends.js";

/** What the shared suite hands each part of it: the backend under test and its long-lived inmate. */
export interface SuiteContext {
  entry: SuiteBackend;
  /** The inmate, restarted when an earlier test ended it (crash, bomb, garbage): the brain stays. */
  liveInmate(): Promise<CellHandle>;
  /** A new agent cell (the caller stops it) for the user, with a new brain's defaults. */
  startAgent(user: string): Promise<CellHandle>;
}

/** The conformance half of the shared suite: what every backend must do, the same way. */
export function defineConformance({ entry, liveInmate, startAgent }: SuiteContext): void {
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
        // The agent's memory, which the image's bundled runtime holds, indexes a note with the built-in
        // embedder: a semantic search finds it with a similarity only vectors give.
        const agent = await startAgent("embedder");
        try {
          const note = "# Sovereign memory\n\nThe agent keeps its memory in markdown on its own disk.\n";
          await agent.call({ type: "FileOpRequest", op: "write", path: "notes/memory.md", content: note });
          const found = await agent.call(
            {
              type: "QueryRequest",
              query: { kind: "memory_search", text: "sovereign memory", mode: "semantic" },
            },
            { timeoutMs: 240_000 },
          );
          expect(found).toMatchObject({ type: "QueryResult", answer: { kind: "memory_search" } });
          const hits =
            found.type === "QueryResult" && found.answer?.kind === "memory_search" ? found.answer.hits : [];
          const hit = hits.find((h) => h.path === "notes/memory.md");
          expect(hit?.semantic.similarity ?? 0).toBeGreaterThan(0);
        } finally {
          await agent.stop({ timeoutMs: 20_000 });
        }
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

    it("ends a discarded cell at once, with the work it was doing", async () => {
      const cell = await liveInmate();
      // A command still running in the cell: a graceful stop would let it finish its turn; a discard does not.
      const marker = String(700_000 + Math.floor(Math.random() * 99_999));
      const turn = shellIn(cell, `sleep ${marker}`).catch((error: Error) => error);
      // A VM's processes are not the host's to see: there the command is given a moment to start.
      const seen = entry.name !== "microvm";
      if (seen)
        await expect.poll(() => hostProcessesWith(`sleep ${marker}`), { timeout: 60_000 }).toBeGreaterThan(0);
      else await new Promise((resolve) => setTimeout(resolve, 2_000));
      const exit = await cell.stop({ discard: true, reason: "discarded" });
      expect(exit).toMatchObject({ requested: true, reason: "discarded" });
      // Killed outright where that ends the whole cell; the process backend's stop stays graceful.
      if (cell.isolated) expect(exit.signal).toBe("SIGKILL");
      expect(await turn).toBeInstanceOf(Error);
      expect(hostProcessesWith(`sleep ${marker}`)).toBe(0);
    }, 120_000);

    it("reports a crash as an exit nobody asked for", async () => {
      const cell = await liveInmate();
      void cell.call({ type: "UserMessage", text: "!exit 3" }).catch(() => undefined);
      const exit = await cell.exited;
      expect(exit.requested).toBe(false);
    }, 120_000);
    it("lets the warden edit config/ through the runtime, while tools can only read it", async () => {
      const cell = await liveInmate();
      const profile = `name = "scribe"\nprovider = "local"\nmodel = "tiny"\n`;
      const wrote = await cell.call({
        type: "FileOpRequest",
        op: "write",
        path: "config/agents/scribe.toml",
        content: profile,
      });
      expect(wrote).toMatchObject({ type: "FileOpResult" });
      expect(wrote.type === "FileOpResult" && wrote.error).toBeFalsy();
      expect((await shellIn(cell, "cat config/agents/scribe.toml")).stdout).toBe(profile);
      const deleted = await cell.call({
        type: "FileOpRequest",
        op: "delete",
        path: "config/agents/scribe.toml",
      });
      expect(deleted.type === "FileOpResult" && deleted.error).toBeFalsy();
    });

    it.runIf(entry.name === "bwrap")(
      "binds the host's built-in word table read-only, so a local-embedder brain converts nothing",
      async () => {
        const host = join(ironclawHome(), "embeddings");
        const table = readdirSync(host).find((name) => name.endsWith(".bin"));
        expect(table, `the host prepared a word table in ${host}`).toBeDefined();
        const out = await shellIn(
          await liveInmate(),
          `echo home=$IRONCLAW_HOME; stat -c %s "$IRONCLAW_HOME/embeddings/${table}"; touch "$IRONCLAW_HOME/embeddings/x" 2>/dev/null && echo WRITABLE`,
        );
        expect(out.stdout).toBe(`home=/opt/ironclaw\n${readFileSync(join(host, table as string)).length}\n`);
      },
    );
  });
}

/** How many host processes have `text` in their command line (every cell's processes are the host's too). */
function hostProcessesWith(text: string): number {
  let found = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (
        readFileSync(join("/proc", pid, "cmdline"), "utf8")
          .split("\0")
          .join(" ")
          .includes(text)
      )
        found += 1;
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
