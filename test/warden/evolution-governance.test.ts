import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// Issue 37 end to end over a real warden: three of ada's conversations, each answer rated down, give a proposal
// for the tool they used; an admin approves and promotes it, which writes ada's instruction file through her
// cell as a person's edit (her brain's history names the proposal), and rolls it back the same way.

type Call = ReturnType<typeof api>;
type Json = Record<string, unknown>;
type HistoryEntry = { cause: string; files: string[] };

const SKILL_FILE = "instructions/skill-file.md";
const OWN_NOTES = "# Skill: file\n\nMy own notes on files.\n";

let h: WardenHarness;
let ada: Call;
let boss: Call;
let bob: Call | undefined;

const data = async <T = Json>(response: Response): Promise<T> =>
  ((await response.json()) as { data: T }).data;
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; message: string } }).error;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await sleep(50);
  }
}

/** A state recorded while other changes were queued carries all their causes, joined by "; ". */
const names = (entry: HistoryEntry, cause: string) => entry.cause.split("; ").includes(cause);
const adaHistory = async () =>
  (await data<{ entries: HistoryEntry[] }>(await boss("GET", "/api/brain/history?user=ada"))).entries;
const skillFile = async () => {
  const response = await ada("GET", `/api/brain/file?path=${encodeURIComponent(SKILL_FILE)}`);
  return response.status === 200 ? (await data<{ content: string }>(response)).content : null;
};

/** A conversation whose answer used the file tool, rated down with a comment. */
async function ratedDownSession(n: number): Promise<string> {
  h.model.enqueue(
    reply.toolCalls([
      { name: "file", arguments: { action: "write", path: `notes/n${n}.md`, content: `# ${n}\n` } },
    ]),
    reply.text(`Saved note ${n}.`),
  );
  const chat = await ada("POST", "/api/chat", { text: `save note ${n}` });
  expect(chat.status).toBe(200);
  const sessionId = (await data<{ session_id: string }>(chat)).session_id;
  const detail = await data<{ entries: Array<{ seq: number; role: string }> }>(
    await ada("GET", `/api/sessions/${sessionId}`),
  );
  const answer = detail.entries.find((e) => e.role === "assistant")?.seq;
  const rated = await ada("POST", "/api/feedback", {
    session_id: sessionId,
    message_seq: answer,
    rating: "down",
    comment: `note ${n} went to the wrong place`,
  });
  expect(rated.status).toBe(200);
  return sessionId;
}

beforeAll(async () => {
  h = await startWardenHarness({ backend: createFakeCellBackend() });
  ada = api(h.url, await h.addUser("ada"));
  boss = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
  // Ada's own notes in the file the proposal targets: the promotion appends to them, the rollback restores them.
  const own = await ada("PUT", "/api/brain/file", { path: SKILL_FILE, content: OWN_NOTES });
  expect(own.status).toBe(200);
  for (const n of [1, 2, 3]) await ratedDownSession(n);
  // The sessions' turns are in the history before the promotion writes: a record still running when the
  // promotion writes would hold its change too, and leave the promotion no state of its own.
  await h.warden.context.chat.settleBrainChanges();
}, 90_000);
afterAll(async () => {
  await h?.close();
});

describe("governance of evolution through the warden", () => {
  let proposalId = "";

  it("shows the proposal the three rated sessions give, ready, low risk, for admins only", async () => {
    expect((await ada("GET", "/api/evolution/governance")).status).toBe(403);
    const report = await data<{ proposals: Json[] }>(await boss("GET", "/api/evolution/governance"));
    const row = report.proposals.find((p) => p.subject === "file");
    expect(row).toMatchObject({
      kind: "skill_prompt_metadata",
      target_path: SKILL_FILE,
      readiness: "ready_for_promotion",
      risk_level: "low",
      review_status: "pending",
    });
    proposalId = row?.proposal_id as string;
  });

  it("shows each piece of evidence from projected record to the raw envelope, and ada's brain as the target", async () => {
    const detail = await data<{
      target: { user_id: string | null };
      proposal: { gate: { passed: boolean; checks: Json[] } };
      evidence: Array<{
        submitted_by: string;
        projected: { source_event_id: string; comment: string };
        raw_envelope: { event: { event_id: string; comment: string } };
      }>;
    }>(await boss("GET", `/api/evolution/proposals/${proposalId}`));
    expect(detail.target.user_id).toBe("ada");
    expect(detail.proposal.gate.passed).toBe(true);
    expect(detail.evidence).toHaveLength(3);
    for (const link of detail.evidence) {
      expect(link.submitted_by).toBe("ada");
      expect(link.raw_envelope.event.event_id).toBe(link.projected.source_event_id);
      expect(link.raw_envelope.event.comment).toBe(link.projected.comment);
    }
    const unknown = await boss("GET", "/api/evolution/proposals/00000000-0000-5000-8000-000000000000");
    expect(unknown.status).toBe(404);
  });

  it("refuses bad input naming the field", async () => {
    const bad = await boss("POST", "/api/evolution/review", { proposal_id: proposalId, decision: "maybe" });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).message).toContain("decision");
    const noId = await boss("POST", "/api/evolution/rollback", {});
    expect(noId.status).toBe(400);
    expect((await errorOf(noId)).message).toContain("proposal_id");
    expect(
      (await ada("POST", "/api/evolution/review", { proposal_id: proposalId, decision: "approve" })).status,
    ).toBe(403);
  });

  it("approves, shows the exact change in a dry run, then promotes it into ada's brain with a history node", async () => {
    const approved = await boss("POST", "/api/evolution/review", {
      proposal_id: proposalId,
      decision: "approve",
      reason: "three bad sessions",
    });
    expect(await data(approved)).toMatchObject({ status: "approved" });

    const dry = await data<{ changes: Json[] }>(
      await boss("POST", "/api/evolution/promote", { dry_run: true }),
    );
    expect(dry.changes).toEqual([
      expect.objectContaining({ proposal_id: proposalId, user_id: "ada", outcome: "would_apply" }),
    ]);
    expect(await skillFile()).toBe(OWN_NOTES);

    const promoted = await data<{ changes: Array<{ outcome: string; after: string }> }>(
      await boss("POST", "/api/evolution/promote", {}),
    );
    expect(promoted.changes[0]?.outcome).toBe("applied");
    const after = await skillFile();
    expect(after).toBe(promoted.changes[0]?.after);
    expect(after?.startsWith(OWN_NOTES)).toBe(true);
    expect(after).toContain("Sessions that used file were judged failed");
    const entries = await until(adaHistory, (e) =>
      e.some((x) => names(x, `evolution promotion ${proposalId}`)),
    );
    expect(entries.find((x) => names(x, `evolution promotion ${proposalId}`))?.files).toContain(SKILL_FILE);
    const report = await data<{ proposals: Json[] }>(await boss("GET", "/api/evolution/governance"));
    expect(report.proposals.find((p) => p.proposal_id === proposalId)?.review_status).toBe("promoted");
  });

  it("leaves ada's agent running: the soul guard takes the promoted file as a person's choice", async () => {
    h.model.enqueue(reply.text("Still here."));
    const turn = await ada("POST", "/api/chat", { text: "are you there?" });
    expect(turn.status).toBe(200);
    expect(h.warden.context.soul.halted("ada")).toBeUndefined();
    // The turn's state is recorded before the rollback writes (see beforeAll).
    await h.warden.context.chat.settleBrainChanges();
  });

  it("rolls the promotion back: the file holds ada's own notes again and the history records it", async () => {
    const rolled = await boss("POST", "/api/evolution/rollback", { proposal_id: proposalId });
    expect(await data(rolled)).toMatchObject({ proposal_id: proposalId, user_id: "ada", rolled_back: true });
    expect(await skillFile()).toBe(OWN_NOTES);
    const entries = await until(adaHistory, (e) =>
      e.some((x) => names(x, `evolution rollback ${proposalId}`)),
    );
    expect(entries.find((x) => names(x, `evolution rollback ${proposalId}`))?.files).toContain(SKILL_FILE);
    const again = await boss("POST", "/api/evolution/rollback", { proposal_id: proposalId });
    expect(again.status).toBe(409);
  });

  it("refuses to promote a proposal whose evidence comes from two users' sessions, naming both", async () => {
    bob ??= api(h.url, await h.addUser("bob"));
    const bobCall = bob;
    const feedback = (caller: Call, session: string) =>
      caller("POST", "/api/evolution/events", {
        contract_name: "openclaw_appleseed.runtime_event",
        contract_version: "1.0",
        source: "meeting-planner",
        event: {
          event_kind: "session_feedback",
          session_id: session,
          task: "plan a meeting",
          status: "failure",
          score: 0,
          missing_capabilities: ["calendar"],
        },
      });
    expect((await feedback(ada, "ada-meeting")).status).toBe(200);
    expect((await feedback(bobCall, "bob-meeting")).status).toBe(200);
    const report = await data<{ proposals: Json[] }>(await boss("GET", "/api/evolution/governance"));
    const id = report.proposals.find((p) => p.subject === "calendar")?.proposal_id as string;
    const detail = await data<{ target: { user_id: string | null; refusal: string } }>(
      await boss("GET", `/api/evolution/proposals/${id}`),
    );
    expect(detail.target.user_id).toBeNull();
    expect(detail.target.refusal).toContain("several users (ada, bob)");
    await boss("POST", "/api/evolution/review", { proposal_id: id, decision: "approve" });
    const promoted = await data<{ changes: Json[] }>(await boss("POST", "/api/evolution/promote", {}));
    expect(promoted.changes).toEqual([
      expect.objectContaining({ proposal_id: id, user_id: null, outcome: "refused" }),
    ]);
    expect(String(promoted.changes[0]?.reason)).toContain("ada, bob");
    const after = await data<{ proposals: Json[] }>(await boss("GET", "/api/evolution/governance"));
    expect(after.proposals.find((p) => p.proposal_id === id)?.review_status).toBe("approved");
  });

  it("lists the governance routes in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    for (const path of [
      "/api/evolution/governance",
      "/api/evolution/proposals/{id}",
      "/api/evolution/review",
      "/api/evolution/promote",
      "/api/evolution/rollback",
    ])
      expect(Object.keys(doc.paths)).toContain(path);
  });
});
