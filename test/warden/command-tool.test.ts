import { afterEach, describe, expect, it } from "vitest";
import { createCommandTool, createToolBox, MemoryAuditLog, PathPolicy } from "../../src/agent/index.js";
import { createLogger } from "../../src/core/index.js";
import { createProxyCommandClient } from "../../src/inmate/command-proxy.js";
import { commandNotifier } from "../../src/warden/command-notifier.js";
import { createCommandDesk } from "../../src/warden/command-requests.js";
import { MemoryCommandGateway } from "../support/memory-command-gateway.js";
import type { ScriptedCell } from "../support/scripted-cell.js";
import { startScriptedUnits, type WardenUnits } from "../support/warden-units.js";

// The command tool and the warden's desk over fake cells: each message a user sends is one call of the real
// `command` tool (its arguments are the message's JSON) through the inmate's proxy, the channel's checks and the
// warden's desk, to a gateway over an in-memory record. What the agent reads back is the tool's result.

let units: WardenUnits | undefined;
afterEach(async () => {
  await units?.close();
  units = undefined;
});

/** A cell whose every turn is one command tool call, run by a tool box as the agent loop runs it. */
function commandCell(cell: ScriptedCell) {
  const box = createToolBox({
    tools: [createCommandTool(createProxyCommandClient(cell.peer))],
    allow: ["command"],
    agent: "assistant",
    pathPolicy: new PathPolicy(["/nonexistent"]),
    audit: new MemoryAuditLog(),
  });
  return {
    async *onUserMessage(message: { text: string; session_id: string }) {
      const call = { id: "call_1", name: "command", arguments: message.text };
      const result = await box.run(call, {
        signal: new AbortController().signal,
        sessionId: message.session_id,
      });
      yield {
        kind: "tool" as const,
        callId: call.id,
        tool: "command",
        isError: result.isError,
        content: result.content,
      };
      yield { kind: "final" as const, text: result.isError ? "could not" : "started" };
    },
  };
}

async function start(options: { hosted?: boolean } = {}) {
  const { units: u, scripted } = await startScriptedUnits(commandCell);
  units = u;
  const gateway = new MemoryCommandGateway(commandNotifier(u.chat));
  if (options.hosted !== false)
    u.cells.serveCommands(
      createCommandDesk({
        gateway,
        conversations: u.conversations,
        audit: (e) => u.audit.record(e),
        logger: createLogger("command-desk", { level: "silent" }),
      }),
    );
  return { u, scripted, gateway };
}

/** Runs one command call as the user's turn; returns the tool's result and the conversation. */
async function ask(u: WardenUnits, userId: string, args: unknown, sessionId?: string) {
  const events = await u.turn({ userId, text: JSON.stringify(args), ...(sessionId ? { sessionId } : {}) });
  const session = events.find((e) => e.type === "session");
  const tool = events.find((e) => e.type === "tool");
  if (session?.type !== "session" || tool?.type !== "tool") throw new Error("no session or tool event");
  return { sessionId: session.sessionId, isError: tool.isError, content: tool.content };
}

describe("the command tool through the warden", () => {
  it("starts a run for the cell's user, from the conversation they asked in, and audits it", async () => {
    const { u, gateway } = await start();
    const started = await ask(u, "ada", {
      action: "start",
      theater: "demo",
      objective: "add rate limiting to the API",
    });
    expect(started.isError).toBe(false);
    expect(started.content).toContain("Run run_1 in theater demo: OPEN");
    expect(gateway.starts).toEqual([
      {
        userId: "ada",
        start: {
          theaterId: "demo",
          objective: "add rate limiting to the API",
          conversation: { sessionId: started.sessionId, channel: "api" },
        },
      },
    ]);
    const [audited] = u.audit.list({ userId: "ada", action: "command.start" });
    expect(audited?.detail).toMatchObject({
      theater_id: "demo",
      run_id: "run_1",
      status: "OPEN",
      outcome: "ok",
    });
    // The answer reaches the tool's waiter in the cell and nothing else: the cell does not answer it back.
    const fromCell: string[] = [];
    u.cells.running("ada")?.onEvent((m) => fromCell.push(m.type));
    const status = await ask(u, "ada", { action: "status", run_id: "run_1" }, started.sessionId);
    expect(status.content).toContain("Run run_1 in theater demo: OPEN");
    expect(fromCell).toContain("CommandRequest");
    expect(fromCell).not.toContain("Error");
  });

  it("answers another user's run id as not found, for status and cancel, and leaves that run alone", async () => {
    const { u, gateway } = await start();
    await ask(u, "bob", { action: "start", theater: "demo", objective: "bob's own work" });
    for (const action of ["status", "cancel"]) {
      const answer = await ask(u, "ada", { action, run_id: "run_1" });
      expect(answer.isError).toBe(true);
      expect(answer.content).toBe(`command ${action} failed (not_found): run run_1 not found`);
    }
    expect((await gateway.status("bob", "run_1"))?.status).toBe("OPEN");
    expect(u.audit.list({ userId: "ada", action: "command.cancel" })[0]?.detail).toMatchObject({
      outcome: "not_found",
    });
  });

  it("refuses an objective over the cap naming the field: the tool before it leaves, the warden if it does", async () => {
    const { u, scripted, gateway } = await start();
    const long = "x".repeat(4001);
    const answer = await ask(u, "ada", { action: "start", theater: "demo", objective: long });
    expect(answer.content).toContain("objective: must be at most 4000 characters");
    // A guest that skips its tool's check: the channel's inbound check refuses the frame.
    const peer = scripted.cells[0]?.peer;
    const reply = await peer?.call({
      type: "CommandRequest",
      action: "start",
      theater_id: "demo",
      objective: long,
    });
    expect(reply).toMatchObject({ type: "Error", code: "invalid_message" });
    expect(reply?.type === "Error" && reply.message).toMatch(/^objective: must be at most 4000 characters/);
    const unsafe = await peer?.call({
      type: "CommandRequest",
      action: "start",
      theater_id: "../etc",
      objective: "go",
    });
    expect(unsafe?.type === "Error" && unsafe.message).toMatch(/^theater_id: /);
    expect(gateway.starts).toEqual([]);
  });

  it("refuses a request that names another user, whoever the cell claims to be", async () => {
    const { u, scripted, gateway } = await start();
    await ask(u, "ada", { action: "status", run_id: "run_9" });
    const reply = await scripted.cells[0]?.peer.call({
      type: "CommandRequest",
      user_id: "bob",
      action: "start",
      theater_id: "demo",
      objective: "charge bob",
    });
    expect(reply).toMatchObject({ type: "CommandResult", error: { code: "forbidden" } });
    expect(gateway.starts).toEqual([]);
  });

  it("says command is not enabled on a host that does not run it", async () => {
    const { u } = await start({ hosted: false });
    const answer = await ask(u, "ada", { action: "start", theater: "demo", objective: "anything" });
    expect(answer).toMatchObject({ isError: true });
    expect(answer.content).toBe("command start failed (not_enabled): command is not enabled on this host");
    expect(u.audit.list({ userId: "ada", action: "command.start" })[0]?.detail).toMatchObject({
      outcome: "not_enabled",
    });
  });
});

describe("a run's news in the conversation it was started from", () => {
  it("posts progress as the run goes and its final reply as the assistant, in that conversation only", async () => {
    const { u, gateway } = await start();
    const relayed: string[] = [];
    u.chat.onConversationPost((post) =>
      relayed.push(`${post.userId} ${post.channel} ${post.kind}: ${post.text}`),
    );
    const started = await ask(u, "ada", { action: "start", theater: "demo", objective: "add rate limiting" });
    const other = await ask(u, "ada", { action: "status", run_id: "run_1" });
    gateway.plan("run_1", ["limit requests per token", "document the limit"]);
    gateway.integrate("run_1", "order_1");
    gateway.failOrder("run_1", "order_2", "the docs build failed");
    gateway.complete("run_1", "Rate limiting is in: 100 requests a minute per token.");
    const posted = u.conversations
      .entries(started.sessionId)
      .filter((e) => e.meta.source === "command")
      .map((e) => ({ role: e.role, content: e.content, notice: e.meta.notice, ref: e.meta.ref }));
    expect(posted).toEqual([
      {
        role: "assistant",
        content: "Planned 2 orders: limit requests per token; document the limit.",
        notice: "progress",
        ref: "run_1",
      },
      { role: "assistant", content: "Order order_1 was merged.", notice: "progress", ref: "run_1" },
      {
        role: "assistant",
        content: "Order order_2 failed: the docs build failed",
        notice: "progress",
        ref: "run_1",
      },
      {
        role: "assistant",
        content: "Rate limiting is in: 100 requests a minute per token.",
        notice: "reply",
        ref: "run_1",
      },
    ]);
    expect(u.conversations.entries(other.sessionId).some((e) => e.meta.source === "command")).toBe(false);
    // The front doors hear each post too (a Telegram chat is sent it), with the conversation's channel.
    expect(relayed).toHaveLength(4);
    expect(relayed[3]).toBe("ada api reply: Rate limiting is in: 100 requests a minute per token.");
    const status = await ask(u, "ada", { action: "status", run_id: "run_1" }, started.sessionId);
    expect(status.content).toContain("order_2 FAILED: document the limit");
    expect(status.content).toContain("Final reply: Rate limiting is in");
  });

  it("posts a cancelled run as an error, and cancelling it again is a conflict", async () => {
    const { u } = await start();
    const started = await ask(u, "ada", { action: "start", theater: "demo", objective: "something long" });
    const cancelled = await ask(u, "ada", { action: "cancel", run_id: "run_1" }, started.sessionId);
    expect(cancelled.content).toContain("Run run_1 in theater demo: CANCELLED");
    const posted = u.conversations.entries(started.sessionId).filter((e) => e.meta.source === "command");
    expect(posted.map((e) => ({ role: e.role, content: e.content }))).toEqual([
      { role: "error", content: "Run run_1 was cancelled." },
    ]);
    const again = await ask(u, "ada", { action: "cancel", run_id: "run_1" }, started.sessionId);
    expect(again.content).toBe("command cancel failed (conflict): run run_1 is CANCELLED already");
  });

  it("does not post to a conversation that is not the run's user's", async () => {
    const { u } = await start();
    const bobs = await ask(u, "bob", { action: "status", run_id: "run_1" });
    const relayed: unknown[] = [];
    u.chat.onConversationPost((post) => relayed.push(post));
    const notify = commandNotifier(u.chat);
    const posted = notify("ada", { sessionId: bobs.sessionId, channel: "api" }, "not for bob", {
      kind: "progress",
      runId: "run_1",
    });
    expect(posted).toBeUndefined();
    expect(u.conversations.entries(bobs.sessionId).some((e) => e.content === "not for bob")).toBe(false);
    expect(relayed).toEqual([]);
  });
});
