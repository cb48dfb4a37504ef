import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHostConfig } from "../../src/cells/index.js";
import { reply } from "../support/model-server.js";
import { startTelegramServer, type TelegramServer, telegramIntegration } from "../support/telegram-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// Configuration by conversation from an admin's own agent in a real cell: the scripted model calls
// settings_propose, the warden stores the proposal and changes nothing; the admin confirms it over the API and
// the file changes, audited; a revert restores it byte for byte. A non-admin's agent has no such tool, a secret
// as a value and a file edited since are refused. The same flow changes another user's agent profile (written
// in their brain by their cell) and their spend cap (in host.db, enforced at their next turn).

let h: WardenHarness;
let bot: TelegramServer;
const SECRET = "settings-webhook-secret";
let updateId = 5000;
let root: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
const file = () => join(h.home, "ironclawd.toml");

interface Proposal {
  id: string;
  status: string;
  diff: string;
  secrets: Array<{ name: string; set: boolean }>;
}

beforeAll(async () => {
  bot = await startTelegramServer();
  h = await startWardenHarness({
    configure: (config) => ({ ...config, integrations: telegramIntegration(bot, SECRET) }),
  });
  root = api(h.url, (await h.warden.context.users.add("root", { admin: true })).token);
  bob = api(h.url, await h.addUser("bob"));
}, 120_000);
afterAll(async () => {
  await h?.close();
  await bot?.close();
});

/** A private message to the Telegram bot from `from`, through the warden's real webhook. */
const telegram = (text: string, from: number) =>
  fetch(`${h.url}/channels/telegram/family`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: JSON.stringify({
      update_id: updateId++,
      message: {
        message_id: updateId,
        date: 1,
        text,
        chat: { id: from, type: "private" },
        from: { id: from, is_bot: false, first_name: "Root" },
      },
    }),
  });

/** Pairs the Telegram chat `from` with the user behind `call`, and waits for the bot's answer. */
async function pair(call: ReturnType<typeof api>, from: number): Promise<void> {
  const code = (
    (await (await call("POST", "/api/channels/pairing-code")).json()) as { data: { code: string } }
  ).data.code;
  const sent = bot.sentMessages().length;
  expect((await telegram(`/pair ${code}`, from)).status).toBe(200);
  await bot.waitForMessages(sent + 1);
}

/** The last tool result the model was shown in the turn that just ran. */
function lastToolText(): string {
  const messages = h.model.chatRequests().at(-1)?.messages ?? [];
  return String(messages.filter((m) => m.role === "tool").at(-1)?.content ?? "");
}

/** bob's agent profile, as his brain holds it (read through his cell, as the memory inspector does). */
async function bobsProfile(): Promise<string> {
  const answer = await bob("GET", "/api/brain/file?path=config/agents/assistant.toml");
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { data: { content: string } }).data.content;
}

/** bob's caps as the budget API shows them to an admin. */
async function bobsCaps(): Promise<Array<{ party: string; daily_usd: number | null }>> {
  const answer = (await (await root("GET", "/api/budgets?user=bob")).json()) as {
    data: { budgets: Array<{ party: string; daily_usd: number | null }> };
  };
  return answer.data.budgets;
}

async function proposals(): Promise<Proposal[]> {
  const answer = (await (await root("GET", "/api/settings/proposals")).json()) as {
    data: { proposals: Proposal[] };
  };
  return answer.data.proposals;
}

describe("configuration by conversation", () => {
  it("proposes from the admin's chat, changes nothing until confirmed, applies, audits and reverts", async () => {
    const before = readFileSync(file(), "utf8");
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            summary: "Accept chat messages up to 512 KiB",
            changes: [{ path: "limits.max_message_bytes", value: 524288 }],
          },
        },
      ]),
      reply.text("I proposed it; please confirm it on the Settings screen."),
    );
    expect((await root("POST", "/api/chat", { text: "let people send longer messages" })).status).toBe(200);
    const tools = (h.model.chatRequests().at(-1)?.tools ?? []) as Array<{ function?: { name?: string } }>;
    expect(tools.map((t) => t.function?.name)).toContain("settings_propose");
    const told = lastToolText();
    expect(told).toMatch(
      /^Proposal cfg_\w+ is waiting for the person's confirmation; nothing has changed yet\./,
    );
    expect(told).toContain("+max_message_bytes = 524288");
    expect(told).toContain("takes effect at its next restart");

    // Unconfirmed: the file is as it was.
    expect(readFileSync(file(), "utf8")).toBe(before);
    const [pending] = await proposals();
    expect(pending).toMatchObject({ status: "pending" });
    expect(told).toContain(pending?.id);

    // Only an admin reaches the routes; the proposer confirms.
    expect((await bob("GET", "/api/settings/proposals")).status).toBe(403);
    expect((await bob("POST", `/api/settings/proposals/${pending?.id}/confirm`)).status).toBe(403);
    const confirmed = await root("POST", `/api/settings/proposals/${pending?.id}/confirm`);
    expect(confirmed.status).toBe(200);
    expect(loadHostConfig(h.home).limits.max_message_bytes).toBe(524288);

    const reverted = await root("POST", `/api/settings/proposals/${pending?.id}/revert`);
    expect(reverted.status).toBe(200);
    expect(readFileSync(file(), "utf8")).toBe(before);
    const trail = h.warden.context.audit
      .list({ userId: "root" })
      .filter((e) => e.action.startsWith("config."))
      .map((e) => [e.action, e.actor]);
    expect(trail).toEqual([
      ["config.reverted", "user:root"],
      ["config.applied", "user:root"],
      ["config.proposed", "cell:root"],
    ]);
  });

  it("refuses a secret as a value and names the form instead; nothing is stored", async () => {
    const count = (await proposals()).length;
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            summary: "Connect Slack",
            changes: [{ path: "integrations.slack.bot_token", value: "xoxb-1111-2222-abcdefabcdef" }],
          },
        },
      ]),
      reply.text("That was refused."),
    );
    await root("POST", "/api/chat", {
      text: "connect my Slack workspace, the token is xoxb-1111-2222-abcdefabcdef",
    });
    expect(lastToolText()).toMatch(
      /^settings propose was refused \(invalid\): integrations\.slack\.bot_token: holds a secret, .*set bot_token_env/,
    );
    expect(await proposals()).toHaveLength(count);
  });

  it("refuses to confirm over a file edited since the proposal", async () => {
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            summary: "Sign-ins last a day",
            changes: [{ path: "auth.session_ttl_hours", value: 24 }],
          },
        },
      ]),
      reply.text("Proposed."),
    );
    await root("POST", "/api/chat", { text: "make sign-ins last a day" });
    const [latest] = await proposals();
    const edited = `${readFileSync(file(), "utf8")}\n# edited by hand\n`;
    writeFileSync(file(), edited);
    const stale = await root("POST", `/api/settings/proposals/${latest?.id}/confirm`);
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain("changed since proposal");
    expect(readFileSync(file(), "utf8")).toBe(edited);
  });

  it("offers a non-admin's agent no settings tool, and its call is answered as unknown", async () => {
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: { summary: "x", changes: [{ path: "server.port", value: 8081 }] },
        },
      ]),
      reply.text("I cannot."),
    );
    const count = (await proposals()).length;
    await bob("POST", "/api/chat", { text: "move the warden to port 8081" });
    const tools = (h.model.chatRequests().at(-1)?.tools ?? []) as Array<{ function?: { name?: string } }>;
    expect(tools.map((t) => t.function?.name)).not.toContain("settings_propose");
    expect(lastToolText()).toMatch(/^there is no tool named settings_propose/);
    expect(await proposals()).toHaveLength(count);
  });

  it("sends the proposal to the proposer's paired chat, where /confirm applies it and anyone else's is refused", async () => {
    await pair(root, 4242);
    await pair(bob, 4343);
    const sent = bot.sentMessages().length;
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            summary: "Keep idle cells for an hour",
            changes: [{ path: "cells.idle_stop_minutes", value: 60 }],
          },
        },
      ]),
      reply.text("Proposed; confirm it in your chat."),
    );
    await root("POST", "/api/chat", { text: "keep idle cells for an hour" });
    await bot.waitForMessages(sent + 1);
    const [latest] = await proposals();
    const notice = bot.calls
      .filter((c) => c.method === "sendMessage")
      .find((c) => String(c.body.text).includes(latest?.id ?? "-"));
    expect(notice?.body.chat_id).toBe(4242);
    expect(String(notice?.body.text)).toContain("+idle_stop_minutes = 60");
    expect(String(notice?.body.text)).toContain(`Send /confirm ${latest?.id} to apply it`);
    expect(JSON.stringify(notice?.body.reply_markup)).toContain(`confirm:${latest?.id}`);

    const before = readFileSync(file(), "utf8");
    const answered = bot.sentMessages().length;
    await telegram(`/confirm ${latest?.id}`, 4343);
    await bot.waitForMessages(answered + 1);
    expect(bot.sentMessages().at(-1)?.text).toBe(
      `Only root, whose agent proposed it, may confirm proposal ${latest?.id}.`,
    );
    expect(readFileSync(file(), "utf8")).toBe(before);

    await telegram(`/confirm ${latest?.id}`, 4242);
    await bot.waitForMessages(answered + 2);
    expect(bot.sentMessages().at(-1)).toEqual({
      chatId: 4242,
      text: `Applied proposal ${latest?.id} to ironclawd.toml. It takes effect when the warden restarts. Send /revert ${latest?.id} to undo it.`,
    });
    expect(loadHostConfig(h.home).cells.idle_stop_minutes).toBe(60);
    expect(h.warden.context.audit.list({ action: "config.applied" })[0]?.detail).toMatchObject({
      proposal: latest?.id,
      via: "telegram:family",
    });
  });

  it("changes another user's agent profile: proposed with whose it is, applied on confirm, used at their next turn, reverted", async () => {
    const before = await bobsProfile();
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            target: "profile:bob/assistant",
            summary: "Bob's assistant uses the cheaper model",
            changes: [{ path: "model", value: "test-model-mini" }],
          },
        },
      ]),
      reply.text("Proposed; confirm it on the Settings screen."),
    );
    await root("POST", "/api/chat", { text: "use a cheaper model for bob's assistant" });
    const told = lastToolText();
    expect(told).toContain("--- bob's config/agents/assistant.toml");
    expect(told).toContain('+model = "test-model-mini"');
    expect(told).toContain("takes effect from the agent's next turn");
    const [pending] = await proposals();
    expect(pending).toMatchObject({ status: "pending", target: "profile:bob/assistant" });
    expect(await bobsProfile()).toBe(before);

    expect((await root("POST", `/api/settings/proposals/${pending?.id}/confirm`)).status).toBe(200);
    const after = await bobsProfile();
    expect(after).toBe(before.replace(/^model = .*$/m, 'model = "test-model-mini"'));
    expect(after).not.toBe(before);
    h.model.enqueue(reply.text("Hello from the cheaper model."));
    expect((await bob("POST", "/api/chat", { text: "hello" })).status).toBe(200);
    expect(h.model.chatRequests().at(-1)?.model).toBe("test-model-mini");

    expect((await root("POST", `/api/settings/proposals/${pending?.id}/revert`)).status).toBe(200);
    expect(await bobsProfile()).toBe(before);
    const trail = h.warden.context.audit
      .list({ userId: "bob" })
      .filter((e) => e.action === "brain.write")
      .map((e) => [e.actor, e.detail.path, e.detail.proposal]);
    expect(trail.slice(0, 2)).toEqual([
      ["user:root", "config/agents/assistant.toml", pending?.id],
      ["user:root", "config/agents/assistant.toml", pending?.id],
    ]);
  });

  it("caps another user's spend: the diff shows the cap before and after, confirmed it holds at once, reverted it is gone", async () => {
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            target: "budget:bob",
            summary: "Stop Bob's model spending for today",
            changes: [{ path: "daily_usd", value: 0 }],
          },
        },
      ]),
      reply.text("Proposed."),
    );
    await root("POST", "/api/chat", { text: "cap bob at $0 a day" });
    expect(lastToolText()).toContain("-daily_usd = none\n+daily_usd = 0");
    const [pending] = await proposals();
    expect(pending).toMatchObject({ status: "pending", target: "budget:bob" });
    expect(await bobsCaps()).toEqual([]);

    expect((await root("POST", `/api/settings/proposals/${pending?.id}/confirm`)).status).toBe(200);
    expect(await bobsCaps()).toMatchObject([{ party: "user:bob", daily_usd: 0 }]);
    const refused = (await (await bob("POST", "/api/chat", { text: "one more?" })).json()) as {
      data: { stop_reason: string; error: string };
    };
    expect(refused.data.stop_reason).toBe("error");
    expect(refused.data.error).toMatch(/^budget/);

    expect((await root("POST", `/api/settings/proposals/${pending?.id}/revert`)).status).toBe(200);
    expect(await bobsCaps()).toEqual([]);
    expect(
      h.warden.context.audit
        .list({ userId: "root" })
        .filter((e) => e.action.startsWith("config.") && e.detail.proposal === pending?.id)
        .map((e) => [e.action, e.detail.target]),
    ).toEqual([
      ["config.reverted", "budget:bob"],
      ["config.applied", "budget:bob"],
      ["config.proposed", "budget:bob"],
    ]);
  });

  it("names the field and the rule when the target or a value is refused, and stores nothing", async () => {
    const count = (await proposals()).length;
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: { target: "budget:bob", summary: "x", changes: [{ path: "daily_usd", value: -5 }] },
        },
      ]),
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            target: "profile:bob/research",
            summary: "x",
            changes: [{ path: "model", value: "test-model-mini" }],
          },
        },
      ]),
      reply.text("Both were refused."),
    );
    await root("POST", "/api/chat", { text: "cap bob at minus five dollars, and change his research agent" });
    const tools = (h.model.chatRequests().at(-1)?.messages ?? [])
      .filter((m) => m.role === "tool")
      .map((m) => String(m.content));
    expect(tools.at(-2)).toBe(
      "settings propose was refused (invalid): daily_usd: must be at least 0 (US dollars)",
    );
    expect(tools.at(-1)).toBe(
      "settings propose was refused (invalid): target: bob's brain has no agent profile research (no config/agents/research.toml): name one of their agents",
    );
    expect(await proposals()).toHaveLength(count);
  });
});
