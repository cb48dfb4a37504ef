import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { startTelegramServer, type TelegramServer, telegramIntegration } from "../support/telegram-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// Escalations reach the people they concern: the observer's escalation of alice's stalled order arrives in her
// linked Telegram chat with an Acknowledge button and in /api/escalations; acknowledged from either, the other
// shows it; bob neither sees nor acknowledges it; a restarted warden does not send it again.

const SECRET = "webhook-secret-35";
const ALICE_CHAT = 777;
const BOB_CHAT = 888;
const ROOT_CHAT = 999;
let home: string;
let bot: TelegramServer;
let h: WardenHarness;
let alice: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
let root: ReturnType<typeof api>;
let updateId = 5000;

type Escalation = {
  escalation_id: string;
  severity: string;
  order_id: string | null;
  acked: { by: string; channel: string; at: string } | null;
};
type Answer<T> = { ok: boolean; data: T; error: { code: string; message: string } | null };
const json = async <T>(response: Response) => (await response.json()) as Answer<T>;

async function start(): Promise<void> {
  h = await startWardenHarness({
    home,
    backend: createFakeCellBackend(),
    configure: (c) => ({
      ...c,
      cells: { ...c.cells, pool_size: 0 },
      command: { ...c.command, workers: 0, patrol_seconds: 0 },
      integrations: telegramIntegration(bot, SECRET),
    }),
  });
  alice = api(h.url, await h.warden.context.users.rotateToken("alice"));
  bob = api(h.url, await h.warden.context.users.rotateToken("bob"));
  root = api(h.url, await h.warden.context.users.rotateToken("root"));
}

const webhook = (body: unknown) =>
  fetch(`${h.url}/channels/telegram/family`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: JSON.stringify(body),
  });
const chat = { type: "private" };
const typed = (text: string, from: number) =>
  webhook({
    update_id: updateId++,
    message: { message_id: updateId, date: 1, text, chat: { ...chat, id: from }, from: { id: from } },
  });
const pressed = (data: string, from: number) =>
  webhook({
    update_id: updateId++,
    callback_query: {
      id: `cb${updateId}`,
      data,
      from: { id: from, is_bot: false },
      message: { message_id: 1, date: 1, chat: { ...chat, id: from } },
    },
  });

/** The messages sent to one chat, with the Acknowledge button's data when they carry one. */
function sentTo(chatId: number): Array<{ text: string; button?: string }> {
  return bot.calls
    .filter((c) => c.method === "sendMessage" && c.body.chat_id === chatId)
    .map((c) => {
      const markup = c.body.reply_markup as
        | { inline_keyboard: Array<Array<{ callback_data: string }>> }
        | undefined;
      const button = markup?.inline_keyboard[0]?.[0]?.callback_data;
      return { text: String(c.body.text), ...(button ? { button } : {}) };
    });
}

async function pair(call: ReturnType<typeof api>, from: number): Promise<void> {
  const { data } = await json<{ code: string }>(await call("POST", "/api/channels/pairing-code"));
  const before = sentTo(from).length;
  await typed(`/pair ${data.code}`, from);
  await waitFor(() => sentTo(from).length > before);
  expect(sentTo(from).at(-1)?.text).toMatch(/Paired/);
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the Bot API");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * An order of alice's run that a worker started an hour ago and whose single attempt is spent: the observer's
 * patrol escalates it (HIGH, route owner) instead of asking for another attempt.
 */
async function stalledOrder(orderId: string): Promise<void> {
  const store = h.warden.context.command?.store;
  if (!store) throw new Error("command is off");
  const ids = { garrison_id: "local", theater_id: "demo", run_id: "run_a", order_id: orderId, unit_id: null };
  const ts = new Date(Date.now() - 3_600_000).toISOString();
  await store.appendBatch([
    {
      ...ids,
      type: "ORDER_CREATED",
      payload: {
        key: orderId,
        type: "draft",
        objective: "Write the notes",
        inputs: {},
        depends_on: [],
        acceptance_commands: [],
        constraints: {
          budget_seconds: 1,
          max_retries: 0,
          tool_policy: { network: false, fs_allowlist: ["./"] },
        },
        profile: { name: "executor_default", model: "stand-in" },
      },
    },
    { ...ids, type: "ORDER_ENQUEUED", payload: { attempt: 1 } },
    { ...ids, ts, type: "ORDER_STARTED", payload: { attempt: 1 } },
  ]);
  const patrol = await alice("POST", "/api/theaters/demo/patrol", { stall_after_seconds: 1 });
  expect(patrol.status).toBe(200);
}

async function listed(call: ReturnType<typeof api>, query = ""): Promise<Escalation[]> {
  const answer = await call("GET", `/api/escalations${query}`);
  expect(answer.status).toBe(200);
  return (await json<{ escalations: Escalation[] }>(answer)).data.escalations;
}

beforeAll(async () => {
  bot = await startTelegramServer();
  home = await mkdtemp(join(tmpdir(), "ironclaw-escalations-"));
  h = await startWardenHarness({ home, backend: createFakeCellBackend() });
  await h.warden.context.users.add("alice");
  await h.warden.context.users.add("bob");
  await h.warden.context.users.add("root", { admin: true });
  await h.close();
  await start();
  expect((await alice("POST", "/api/theaters", { theater_id: "demo" })).status).toBe(201);
  await h.warden.context.command?.store.append({
    garrison_id: "local",
    theater_id: "demo",
    run_id: "run_a",
    order_id: null,
    unit_id: null,
    type: "RUN_CREATED",
    payload: { user_id: "alice", objective: "notes" },
  });
  await pair(alice, ALICE_CHAT);
  await pair(bob, BOB_CHAT);
  await pair(root, ROOT_CHAT);
}, 120_000);
afterAll(async () => {
  await h?.close();
  await bot?.close();
  await rm(home, { recursive: true, force: true });
});

describe("escalations", () => {
  it("arrive in the owner's linked chat with what, why and severity, and in the owner's API only", async () => {
    await stalledOrder("o1");
    await waitFor(() => sentTo(ALICE_CHAT).some((m) => m.text.startsWith("Escalation (")));
    const message = sentTo(ALICE_CHAT).at(-1);
    expect(message?.text).toMatch(
      /^Escalation \(HIGH\): stalled order in theater demo, run run_a, order o1\n/,
    );
    expect(message?.text).toMatch(/Why: attempt 1 has been RUNNING for more than \d+ s; its retry cap/);
    const [open] = await listed(alice, "?open=1");
    expect(open).toMatchObject({ severity: "HIGH", order_id: "o1", acked: null });
    expect(message?.button).toBe(`ack:${open?.escalation_id}`);
    expect(message?.text).toContain(`/ack ${open?.escalation_id}`);

    expect(sentTo(BOB_CHAT).some((m) => m.text.startsWith("Escalation ("))).toBe(false);
    expect(await listed(bob)).toEqual([]);
    const foreign = await bob("POST", `/api/escalations/${open?.escalation_id}/ack`);
    expect(foreign.status).toBe(404);
    expect((await json(foreign)).error?.code).toBe("not_found");
    // bob's chat cannot acknowledge it either, by button or by hand.
    await pressed(`ack:${open?.escalation_id}`, BOB_CHAT);
    await waitFor(() => sentTo(BOB_CHAT).at(-1)?.text.startsWith("There is no escalation") === true);
  });

  it("acknowledged by its button, show acked in the API, and the API refuses a second acknowledgement", async () => {
    const [open] = await listed(alice, "?open=1");
    const id = open?.escalation_id ?? "";
    await pressed(`ack:${id}`, ALICE_CHAT);
    await waitFor(() => sentTo(ALICE_CHAT).at(-1)?.text === `Acknowledged escalation ${id}.`);
    expect(bot.calls.some((c) => c.method === "answerCallbackQuery")).toBe(true);

    expect(await listed(alice, "?open=1")).toEqual([]);
    const [all] = await listed(alice);
    expect(all?.acked).toMatchObject({ by: "alice", channel: "telegram:family" });
    const again = await alice("POST", `/api/escalations/${id}/ack`);
    expect(again.status).toBe(409);
    expect((await json(again)).error?.message).toMatch(
      /already acknowledged by alice from telegram:family at /,
    );
  });

  it("acknowledged in the API, are answered in the chat as already acknowledged", async () => {
    await stalledOrder("o2");
    await waitFor(() => sentTo(ALICE_CHAT).some((m) => m.text.includes("order o2\n")));
    const open = await listed(alice, "?open=1");
    expect(open.map((e) => e.order_id)).toEqual(["o2"]);
    const id = open[0]?.escalation_id ?? "";
    const acked = await alice("POST", `/api/escalations/${id}/ack`);
    expect(acked.status).toBe(200);
    expect((await json<Escalation>(acked)).data.acked).toMatchObject({ by: "alice", channel: "api" });
    await typed(`/ack ${id}`, ALICE_CHAT);
    await waitFor(() =>
      /already acknowledged by alice from api at /.test(sentTo(ALICE_CHAT).at(-1)?.text ?? ""),
    );
  });

  it("are not sent again by a restarted warden, which goes on delivering new ones", async () => {
    const escalationsSent = () => sentTo(ALICE_CHAT).filter((m) => m.text.startsWith("Escalation ("));
    // o3 stays open: only what the warden remembers keeps it from being sent a second time.
    await stalledOrder("o3");
    await waitFor(() => escalationsSent().length === 3);
    await h.close();
    await start();
    await stalledOrder("o4");
    await waitFor(() => escalationsSent().length >= 4);
    expect(escalationsSent().map((m) => m.text.match(/order (o\d)/)?.[1])).toEqual(["o1", "o2", "o3", "o4"]);
    expect((await listed(alice, "?open=1")).map((e) => e.order_id)).toEqual(["o3", "o4"]);
  }, 60_000);

  it("of no run or theater (the sentinel's) reach the host's admins only", async () => {
    await h.warden.context.command?.store.append({
      event_id: "sentinel.dead.1",
      garrison_id: "local",
      theater_id: null,
      run_id: null,
      order_id: null,
      unit_id: null,
      type: "ESCALATION_RAISED",
      payload: { severity: "CRITICAL", route: "admin", reason: "no PATROL_TICK for two patrol periods" },
    });
    await waitFor(() => sentTo(ROOT_CHAT).some((m) => m.text.startsWith("Escalation (CRITICAL)")));
    expect(sentTo(ROOT_CHAT).at(-1)?.text).toMatch(
      /^Escalation \(CRITICAL\): needs a person on this host\nWhy: no PATROL_TICK/,
    );
    expect((await listed(root, "?open=1")).map((e) => e.escalation_id)).toEqual(["sentinel.dead.1"]);
    expect((await listed(alice)).map((e) => e.escalation_id)).not.toContain("sentinel.dead.1");
    expect(sentTo(ALICE_CHAT).some((m) => m.text.includes("CRITICAL"))).toBe(false);
  });

  it("refuses a bad ?open naming the field and the rule", async () => {
    const bad = await alice("GET", "/api/escalations?open=yes");
    expect(bad.status).toBe(400);
    expect((await json(bad)).error?.message).toMatch(/query\.open.*one of 0, 1, true, false/);
  });

  it("are in /api/openapi.json", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/api/escalations", "/api/escalations/{escalation_id}/ack"]),
    );
  });
});
