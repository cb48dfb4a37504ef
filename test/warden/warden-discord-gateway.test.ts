import {
  GatewayDispatchEvents,
  GatewayOpcodes,
  InteractionResponseType,
  MessageFlags,
} from "discord-api-types/v10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import {
  DISCORD_BOT_ID,
  DISCORD_TOKEN,
  type DiscordServer,
  discordCommand,
  discordMessage,
  discordPing,
  discordUser,
  type GatewayReceived,
  interactionResponse,
  startDiscordServer,
} from "../support/discord-gateway.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

let h: WardenHarness;
let discord: DiscordServer;
let call: ReturnType<typeof api>;
let messages = 0;

const DM = "900000000000000001";
const STRANGERS_DM = "900000000000000002";
const FRANK = "800000000000000001";
const STRANGER = "800000000000000002";
const GUILD = "600000000000000001";
const GUILD_CHANNEL = "500000000000000001";

/** A MESSAGE_CREATE's data: a DM unless `guild` names a server; returns the message's id. */
function message(
  content: string,
  from = FRANK,
  where: { guild?: string; mentions?: string[]; bot?: boolean } = {},
) {
  const id = `40000000000000${String(++messages).padStart(4, "0")}`;
  discord.gateway.dispatch(
    GatewayDispatchEvents.MessageCreate,
    discordMessage({
      id,
      channelId: where.guild ? GUILD_CHANNEL : from === STRANGER ? STRANGERS_DM : DM,
      ...(where.guild ? { guildId: where.guild } : {}),
      content,
      author: discordUser(from, from === FRANK ? "frank" : "someone", where.bot ? { bot: true } : {}),
      mentions: (where.mentions ?? []).map((m) => discordUser(m, "x")),
    }),
  );
  return id;
}
const on = (connection: number, op: number) => (r: GatewayReceived) =>
  r.connection === connection && r.op === op;

beforeAll(async () => {
  // Heartbeats every 2 s: often enough for the tests to see them, seldom enough that a busy host answers in time.
  discord = await startDiscordServer({ heartbeatIntervalMs: 2_000 });
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    configure: (config) => ({
      ...config,
      // The smallest message limit the config takes, so an oversize message is one Discord itself would carry.
      limits: { ...config.limits, max_message_bytes: 1024 },
      integrations: {
        ...ironclawdConfigSchema.parse({}).integrations,
        discord: {
          enabled: true,
          // Gateway only: no interactions URL, so no public key.
          application_id: "123456789012345678",
          bot_token: DISCORD_TOKEN,
          api_base_url: discord.url,
          bot: "guild",
          gateway: true,
        },
      },
    }),
  });
  call = api(h.url, await h.addUser("frank"));
  await discord.gateway.waitForReceived(on(1, 2));
}, 60_000);
afterAll(async () => {
  await h?.close();
  await discord?.close();
});

describe("a Discord bot's gateway, through the warden", () => {
  it("connects where GET /gateway/bot says, identifies with the message intents, and heartbeats", async () => {
    expect(discord.calls.find((c) => c.path === "/api/v10/gateway/bot")).toMatchObject({
      method: "GET",
      auth: `Bot ${DISCORD_TOKEN}`,
    });
    expect(discord.gateway.paths[0]).toBe("/gateway/?v=10&encoding=json");
    const identify = discord.gateway.received.find(on(1, 2));
    // GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT
    expect(identify?.d).toMatchObject({ token: DISCORD_TOKEN, intents: (1 << 9) | (1 << 12) | (1 << 15) });
    await discord.gateway.waitForReceived(on(1, 1));
    // The heartbeat carries the last sequence number seen: READY's at least.
    expect(discord.gateway.received.find(on(1, 1))?.d).toEqual(expect.any(Number));
  });

  it("takes no request at the interactions URL, having no key to check it with", async () => {
    const body = JSON.stringify(discordPing());
    const answer = await fetch(`${h.url}/channels/discord/guild`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-signature-ed25519": "0".repeat(128),
        "x-signature-timestamp": String(Math.floor(Date.now() / 1000)),
      },
      body,
    });
    expect(answer.status).toBe(401);
    expect(JSON.stringify(await answer.json())).toMatch(/over the gateway/);
  });

  it("answers a stranger's DM with one line and runs no turn", async () => {
    const asked = h.model.chatRequests().length;
    message("hello?", STRANGER);
    await discord.waitForPosts(1);
    expect(discord.posts()[0]).toEqual({
      channel: STRANGERS_DM,
      content: expect.stringMatching(/not paired/),
    });
    expect(h.model.chatRequests().length).toBe(asked);
  });

  it("pairs by /pair in a DM, then answers a DM from the user's own agent", async () => {
    const pairing = (await (await call("POST", "/api/channels/pairing-code")).json()) as {
      data: { code: string };
    };
    const posted = discord.posts().length;
    message(`/pair ${pairing.data.code}`);
    await discord.waitForPosts(posted + 1);
    expect(discord.posts()[posted]?.content).toMatch(/^Paired/);
    h.model.enqueue(reply.text("Bread and eggs."));
    message("what is on my list?");
    await discord.waitForPosts(posted + 2, 30_000);
    expect(discord.posts()[posted + 1]).toEqual({ channel: DM, content: "Bread and eggs." });
  }, 60_000);

  it("answers a message over [limits] max_message_bytes with why, runs no turn, and takes a replayed message once", async () => {
    const posted = discord.posts().length;
    const asked = h.model.chatRequests().length;
    message("a long paste: ".padEnd(1500, "x"));
    await discord.waitForPosts(posted + 1);
    expect(discord.posts()[posted]).toEqual({
      channel: DM,
      content: expect.stringMatching(
        /^This message was not sent to your agent: message: a message may be at most 1 KiB \(1024 bytes\)/,
      ),
    });
    expect(h.model.chatRequests().length).toBe(asked);

    // A resumed session replays what it missed: the same MESSAGE_CREATE again is not a second turn.
    h.model.enqueue(reply.text("Once."));
    const once = message("answer once");
    discord.gateway.dispatch(
      GatewayDispatchEvents.MessageCreate,
      discordMessage({
        id: once,
        channelId: DM,
        content: "answer once",
        author: discordUser(FRANK, "frank"),
      }),
    );
    h.model.enqueue(reply.text("After."));
    message("and then");
    await discord.waitForPosts(posted + 3, 30_000);
    expect(discord.posts().slice(posted + 1)).toEqual([
      { channel: DM, content: "Once." },
      { channel: DM, content: "After." },
    ]);
    expect(h.model.chatRequests().length).toBe(asked + 2);
  }, 60_000);

  it("answers a slash command the gateway delivers through the interaction's callback", async () => {
    const posted = discord.posts().length;
    discord.gateway.dispatch(
      GatewayDispatchEvents.InteractionCreate,
      discordCommand({
        id: "300000000000000001",
        token: "interaction-token-1",
        name: "new",
        channelId: DM,
        user: discordUser(FRANK, "frank"),
      }),
    );
    await discord.waitForPosts(posted + 1);
    expect(discord.calls.find((c) => c.path.startsWith("/api/v10/interactions/"))).toMatchObject({
      method: "POST",
      path: "/api/v10/interactions/300000000000000001/interaction-token-1/callback",
      body: interactionResponse({
        type: InteractionResponseType.ChannelMessageWithSource,
        data: { content: "Sent to IronClaw.", flags: MessageFlags.Ephemeral },
      }),
    });
    expect(discord.posts()[posted]).toEqual({ channel: DM, content: "Started a new conversation." });
  });

  it("leaves alone its own messages, other bots', and server chatter that does not mention it", async () => {
    const posted = discord.posts().length;
    const asked = h.model.chatRequests().length;
    message("my own answer", DISCORD_BOT_ID);
    message("beep", "800000000000000003", { bot: true });
    message("talking among ourselves", FRANK, { guild: GUILD });
    h.model.enqueue(reply.text("Only this."));
    message("and this one?");
    await discord.waitForPosts(posted + 1, 30_000);
    expect(discord.posts().slice(posted)).toEqual([{ channel: DM, content: "Only this." }]);
    expect(h.model.chatRequests().length).toBe(asked + 1);
  }, 60_000);

  it("answers a paired user's mention in a server as a reply, and a stranger's with one line and no turn", async () => {
    const posted = discord.posts().length;
    h.model.enqueue(reply.text("Summed up."));
    const asking = message(`<@${DISCORD_BOT_ID}> summarise`, FRANK, {
      guild: GUILD,
      mentions: [DISCORD_BOT_ID],
    });
    await discord.waitForPosts(posted + 1, 30_000);
    expect(discord.posts()[posted]).toEqual({
      channel: GUILD_CHANNEL,
      content: "Summed up.",
      replyTo: asking,
    });
    const said = JSON.stringify(h.model.chatRequests().at(-1));
    expect(said).toContain("summarise");
    expect(said).not.toContain(`<@${DISCORD_BOT_ID}>`);

    const asked = h.model.chatRequests().length;
    const prying = message(`<@${DISCORD_BOT_ID}> what does frank know?`, STRANGER, {
      guild: GUILD,
      mentions: [DISCORD_BOT_ID],
    });
    await discord.waitForPosts(posted + 2);
    expect(discord.posts()[posted + 1]).toEqual({
      channel: GUILD_CHANNEL,
      content: expect.stringMatching(/Message me directly/),
      replyTo: prying,
    });
    expect(h.model.chatRequests().length).toBe(asked);
  }, 60_000);

  it("resumes its session where Discord said after the server closes the socket, and keeps answering", async () => {
    const before = discord.gateway.connections();
    discord.gateway.close(4000, "Unknown error");
    await discord.gateway.waitForReceived(on(before + 1, 6));
    expect(discord.gateway.paths[before]).toBe("/resume/?v=10&encoding=json");
    expect(discord.gateway.received.find(on(before + 1, 6))?.d).toEqual({
      token: DISCORD_TOKEN,
      session_id: "session-1",
      seq: expect.any(Number),
    });
    const posted = discord.posts().length;
    h.model.enqueue(reply.text("Still here."));
    message("are you there?");
    await discord.waitForPosts(posted + 1, 30_000);
    expect(discord.posts()[posted]).toEqual({ channel: DM, content: "Still here." });
  }, 60_000);

  it("reconnects and resumes on RECONNECT, and when heartbeats go unacknowledged", async () => {
    let before = discord.gateway.connections();
    discord.gateway.send({ op: GatewayOpcodes.Reconnect, d: undefined, s: null, t: null });
    await discord.gateway.waitForReceived(on(before + 1, 6));

    before = discord.gateway.connections();
    discord.gateway.ackHeartbeats = false;
    // The next heartbeat finds the last one unanswered: the connection is taken for dead.
    await discord.gateway.waitForReceived(on(before + 1, 6), 1, 15_000);
    discord.gateway.ackHeartbeats = true;
    expect(discord.gateway.received.filter(on(before, 1)).length).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it("identifies anew after Discord invalidates the session", async () => {
    const before = discord.gateway.connections();
    discord.gateway.send({ op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
    await discord.gateway.waitForReceived(on(before + 1, 2), 1, 15_000);
    expect(discord.gateway.received.some(on(before + 1, 6))).toBe(false);
    const posted = discord.posts().length;
    h.model.enqueue(reply.text("New session."));
    message("and now?");
    await discord.waitForPosts(posted + 1, 30_000);
    expect(discord.posts()[posted]).toEqual({ channel: DM, content: "New session." });
  }, 60_000);

  it("closes its connection when the warden stops, and opens no other", async () => {
    const opened = discord.gateway.connections();
    await h.close();
    await discord.gateway.waitForNoConnections();
    expect(discord.gateway.connections()).toBe(opened);
  }, 60_000);
});
