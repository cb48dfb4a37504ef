import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A user's brain history and each chat message's certificate over a real warden: the real agent on a fake
// cell writes its brain as the scripted model asks, the warden records each state, and the routes show, compare
// and restore them; a restore waits until the brain is not in use.

type Call = ReturnType<typeof api>;
type Entry = { node: { node_id: string; parent_node_id: string | null }; cause: string; files: string[] };

let h: WardenHarness;
let ada: Call;
let bob: Call;
let boss: Call;
let sessionId: string;

const PLAN = "notes/plan.md";
const data = async <T>(response: Response): Promise<T> => ((await response.json()) as { data: T }).data;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await sleep(50);
  }
}

const history = async (call: Call, query = "") =>
  data<{ entries: Entry[] }>(await call("GET", `/api/brain/history${query}`));

/** A turn that writes the plan, and its state recorded before the next turn starts (each a node of its own). */
async function writeTurn(content: string, text: string): Promise<void> {
  const before = (await history(ada)).entries.length;
  h.model.enqueue(
    reply.toolCalls([{ name: "file", arguments: { action: "write", path: PLAN, content } }]),
    reply.text(text),
  );
  const turn = await ada("POST", "/api/chat", { text: `write ${content}`, session_id: sessionId });
  expect(turn.status).toBe(200);
  await until(
    () => history(ada),
    (now) => now.entries.length > before,
  );
}

beforeAll(async () => {
  h = await startWardenHarness({ backend: createFakeCellBackend() });
  ada = api(h.url, await h.addUser("ada"));
  bob = api(h.url, await h.addUser("bob"));
  boss = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
  h.model.enqueue(reply.text("Hello."));
  sessionId = (await data<{ session_id: string }>(await ada("POST", "/api/chat", { text: "hi" }))).session_id;
  await until(
    () => history(ada),
    (now) => now.entries.length === 1,
  );
  await writeTurn("# Plan\n\nfirst draft\n", "Written the first draft.");
  await writeTurn("# Plan\n\nsecond draft\n", "Written the second draft.");
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe("/api/attest/certificates?session=", () => {
  it("names each certified reply's conversation entry and the state it left", async () => {
    const listed = await until(
      async () =>
        data<{ certificates: { job_id: string; seq?: number; node_id?: string | null }[] }>(
          await ada("GET", `/api/attest/certificates?session=${sessionId}`),
        ),
      (l) => l.certificates.length === 3,
    );
    const { entries } = await data<{ entries: { seq: number; role: string; content: string }[] }>(
      await ada("GET", `/api/sessions/${sessionId}`),
    );
    const replies = entries.filter((e) => e.role === "assistant");
    expect(listed.certificates.map((c) => c.seq).sort()).toEqual(replies.map((e) => e.seq).sort());
    const newest = listed.certificates[0];
    expect(entries.find((e) => e.seq === newest?.seq)?.content).toBe("Written the second draft.");
    expect((await history(ada)).entries[0]?.node.node_id).toBe(newest?.node_id);
    // Another conversation's filter lists none of them.
    const other = await data<{ total: number }>(await ada("GET", "/api/attest/certificates?session=nope"));
    expect(other.total).toBe(0);
  });
});

describe("/api/brain/history", () => {
  it("lists the states newest first with the files each changed, and shows one with its whole tree", async () => {
    const { entries } = await history(ada);
    const [last, before] = entries;
    // The plan, and the day's log and conversation notes the agent keeps on each turn.
    expect(last?.files).toContain(PLAN);
    expect(before?.files).toContain(PLAN);
    expect(last?.cause).toMatch(/^turn /);
    expect(last?.node.parent_node_id).toBe(before?.node.node_id);
    const shown = await ada("GET", `/api/brain/history/${last?.node.node_id.slice(0, 8)}`);
    expect(shown.status).toBe(200);
    const node = await data<{ node: { node_id: string }; tree: string[] }>(shown);
    expect(node.node.node_id).toBe(last?.node.node_id);
    expect(node.tree).toContain(PLAN);
    expect(node.tree).toContain("soul.md");
  });

  it("diffs a state against its parent, or against any other state", async () => {
    const { entries } = await history(ada);
    const last = entries[0]?.node.node_id as string;
    const first = entries.at(-1)?.node.node_id as string;
    const parent = await data<{ from_node: string; changed: string[]; patch: string }>(
      await ada("GET", `/api/brain/history/diff?to=${last}`),
    );
    expect(parent.from_node).toBe(entries[1]?.node.node_id);
    expect(parent.changed).toContain(PLAN);
    expect(parent.patch).toContain("+second draft");
    expect(parent.patch).toContain("-first draft");
    const root = await data<{ from_node: string | null; added: string[] }>(
      await ada("GET", `/api/brain/history/diff?to=${first}`),
    );
    expect(root.from_node).toBeNull();
    expect(root.added).toContain("soul.md");
    const across = await data<{ from_node: string; to_node: string }>(
      await ada("GET", `/api/brain/history/diff?from=${first}&to=${last}`),
    );
    expect([across.from_node, across.to_node]).toEqual([first, last]);
  });

  it("refuses bad node ids naming the field and the rule, and unknown ones as not found", async () => {
    const malformed = await ada("GET", "/api/brain/history/not*a*node");
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(await malformed.json())).toMatch(/node_id.*must be a node id/);
    const unknown = await ada("GET", "/api/brain/history/00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(await unknown.json())).toContain("node_id");
    const noTo = await ada("GET", "/api/brain/history/diff");
    expect(noTo.status).toBe(400);
    expect(JSON.stringify(await noTo.json())).toContain("to");
    const badFrom = await ada("GET", `/api/brain/history/diff?from=123&to=${"a".repeat(8)}`);
    expect(badFrom.status).toBe(400);
    expect(JSON.stringify(await badFrom.json())).toContain("from");
    const badBody = await ada("POST", "/api/brain/history/restore", { node: "x" });
    expect(badBody.status).toBe(400);
    expect(JSON.stringify(await badBody.json())).toContain("node_id");
  });

  it("shows a user their own history only; an admin names whose", async () => {
    expect((await history(bob)).entries).toEqual([]);
    expect((await history(bob, "?user=ada")).entries).toEqual([]);
    const asAdmin = await history(boss, "?user=ada");
    expect(asAdmin.entries.map((e) => e.node.node_id)).toEqual(
      (await history(ada)).entries.map((e) => e.node.node_id),
    );
  });

  it("refuses a restore while a turn is answered; otherwise stops the idle cell and restores as a new state", async () => {
    const { entries } = await history(ada);
    const earlier = entries[1]?.node.node_id as string;
    // A turn being answered holds the brain: the restore is refused and nothing is written.
    const answering = await h.warden.context.chat.holdBrain("ada", async () => {
      const during = await ada("POST", "/api/brain/history/restore", { node_id: earlier });
      return { status: during.status, body: JSON.stringify(await during.json()) };
    });
    expect(answering.status).toBe(409);
    expect(answering.body).toContain("already being restored");

    expect(h.warden.context.cells.running("ada")).toBeDefined();
    const restored = await ada("POST", "/api/brain/history/restore", { node_id: earlier });
    expect(restored.status).toBe(200);
    expect(h.warden.context.cells.running("ada")).toBeUndefined();
    const body = await data<{ restored_from: string; entry: { cause: string; node: { node_id: string } } }>(
      restored,
    );
    expect(body.restored_from).toBe(earlier);
    expect(body.entry.cause).toBe(`restore of ${earlier}`);
    const file = join(h.home, "users", "ada", "brain", PLAN);
    expect(await readFile(file, "utf8")).toBe("# Plan\n\nfirst draft\n");
    const after = await history(ada);
    expect(after.entries[0]?.node.node_id).toBe(body.entry.node.node_id);
    expect(after.entries[0]?.files).toContain(PLAN);
    expect(after.entries).toHaveLength(entries.length + 1);
  });

  it("makes the prompt files a restore wrote back the versions the soul guard compares with", async () => {
    const soulFile = join(h.home, "users", "ada", "brain", "soul.md");
    const original = await readFile(soulFile, "utf8");
    const before = (await history(ada)).entries;
    const edit = await ada("PUT", "/api/brain/file", { path: "soul.md", content: "# Soul\n\nEdited.\n" });
    expect(edit.status).toBe(200);
    await until(
      () => history(ada),
      (now) => now.entries.length > before.length,
    );
    expect(h.warden.context.soulStore.baseline("ada", "soul.md")?.content).toBe("# Soul\n\nEdited.\n");
    await h.warden.context.cells.stop("ada");
    const restored = await ada("POST", "/api/brain/history/restore", { node_id: before[0]?.node.node_id });
    expect(restored.status).toBe(200);
    expect(await readFile(soulFile, "utf8")).toBe(original);
    expect(h.warden.context.soulStore.baseline("ada", "soul.md")?.content).toBe(original);
  });
});
