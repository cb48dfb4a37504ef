import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandNotifier } from "../../src/warden/command-notifier.js";
import { createCommandDesk } from "../../src/warden/command-requests.js";
import { MemoryCommandGateway } from "../support/memory-command-gateway.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// The user's own agent in a real cell (bwrap, no network) hands work to command: the scripted model calls the
// `command` tool, the inmate asks the warden over the channel, the warden's desk checks it and calls the host's
// CommandGateway (here one over an in-memory record), and the run's news comes back into the conversation.

let h: WardenHarness;
let gateway: MemoryCommandGateway;
let alice: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
let sessionId = "";

beforeAll(async () => {
  h = await startWardenHarness();
  const { context } = h.warden;
  gateway = new MemoryCommandGateway(commandNotifier(context.chat));
  context.cells.serveCommands(
    createCommandDesk({
      gateway,
      conversations: context.conversations,
      audit: (entry) => context.audit.record(entry),
      logger: context.logger,
    }),
  );
  alice = api(h.url, await h.addUser("alice"));
  bob = api(h.url, await h.addUser("bob"));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

type Entry = { role: string; content: string; meta: Record<string, unknown> };

async function chat(call: ReturnType<typeof api>, text: string, session?: string) {
  const path = session ? `/api/sessions/${session}/messages` : "/api/chat";
  const response = await call("POST", path, { text });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { session_id: string; text: string } }).data;
}

async function entries(call: ReturnType<typeof api>, session: string): Promise<Entry[]> {
  const shown = (await (await call("GET", `/api/sessions/${session}`)).json()) as {
    data: { entries: Entry[] };
  };
  return shown.data.entries;
}

/** The tool result the model was given last, as the next model call carries it. */
function lastToolMessage(): string {
  const messages = h.model.chatRequests().at(-1)?.messages ?? [];
  const tool = messages.filter((m) => m.role === "tool").at(-1);
  return String(tool?.content ?? "");
}

describe("the command tool from a user's own agent in a real cell", () => {
  it("starts a run for the user from their conversation, and the agent reads back the run id", async () => {
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "command",
          arguments: { action: "start", theater: "demo", objective: "add rate limiting to the API" },
        },
      ]),
      reply.text("Command is on it (run run_1)."),
    );
    const answer = await chat(alice, "in theater demo, add rate limiting to the API");
    sessionId = answer.session_id;
    expect(answer.text).toBe("Command is on it (run run_1).");
    const tools = (h.model.chatRequests()[0]?.tools ?? []) as Array<{ function?: { name?: string } }>;
    expect(tools.map((t) => t.function?.name)).toContain("command");
    expect(gateway.starts).toEqual([
      {
        userId: "alice",
        start: {
          theaterId: "demo",
          objective: "add rate limiting to the API",
          conversation: { sessionId, channel: "api" },
        },
      },
    ]);
    expect(lastToolMessage()).toContain("Run run_1 in theater demo: OPEN");
    const tool = (await entries(alice, sessionId)).find((e) => e.role === "tool");
    expect(tool).toMatchObject({ meta: { tool: "command", is_error: false } });
  }, 120_000);

  it("answers another user's run id as not found, and that run stays open", async () => {
    h.model.enqueue(
      reply.toolCalls([{ name: "command", arguments: { action: "cancel", run_id: "run_1" } }]),
      reply.text("No such run."),
    );
    await chat(bob, "cancel run run_1");
    expect(lastToolMessage()).toBe("command cancel failed (not_found): run run_1 not found");
    expect((await gateway.status("alice", "run_1"))?.status).toBe("OPEN");
  }, 120_000);

  it("refuses an objective over the cap, naming the field, and starts nothing", async () => {
    h.model.enqueue(
      reply.toolCalls([
        { name: "command", arguments: { action: "start", theater: "demo", objective: "y".repeat(4001) } },
      ]),
      reply.text("Too long."),
    );
    await chat(alice, "do this very long thing", sessionId);
    expect(lastToolMessage()).toContain("objective: must be at most 4000 characters");
    expect(gateway.starts).toHaveLength(1);
  }, 120_000);

  it("shows the run's progress and final reply in the conversation it was started from", async () => {
    gateway.plan("run_1", ["limit requests per token"]);
    gateway.integrate("run_1", "order_1");
    gateway.complete("run_1", "Rate limiting is in: 100 requests a minute per token.");
    const shown = (await entries(alice, sessionId)).filter((e) => e.meta.source === "command");
    expect(shown.map((e) => [e.role, e.content])).toEqual([
      ["assistant", "Planned 1 orders: limit requests per token."],
      ["assistant", "Order order_1 was merged."],
      ["assistant", "Rate limiting is in: 100 requests a minute per token."],
    ]);
    const audited = h.warden.context.audit.list({ userId: "alice", action: "command.start" });
    expect(audited.map((a) => a.detail.outcome)).toEqual(["ok"]);
  }, 60_000);
});
