import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { InteractionResponseType, MessageFlags } from "discord-api-types/v10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import {
  commandRegistration,
  type DiscordCall,
  type DiscordServer,
  discordCommand,
  discordPing,
  discordUser,
  interactionResponse,
  startDiscordServer,
} from "../support/discord-gateway.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// The stand-in Discord's HTTP API records every call, and answers as Discord's would.
let calls: DiscordCall[];
let discord: DiscordServer;
let h: WardenHarness;
let call: ReturnType<typeof api>;
let privateKey: KeyObject;
let publicKeyHex: string;
let interactions = 0;

const DM = "900000000000000001";
const FRANK = "800000000000000001";
const posts = () => calls.filter((c) => c.method === "POST" && c.path.startsWith("/api/v10/channels/"));
async function waitForPosts(count: number, timeoutMs = 30_000): Promise<void> {
  await discord.waitForPosts(count, timeoutMs);
}

/** Signs a body as Discord does: Ed25519 over the timestamp and the body. */
const signed = (body: string, at = Math.floor(Date.now() / 1000), key = privateKey) => ({
  "x-signature-timestamp": String(at),
  "x-signature-ed25519": sign(null, Buffer.from(`${at}${body}`), key).toString("hex"),
});
const interact = (body: string, headers: Record<string, string> = signed(body)) =>
  fetch(`${h.url}/channels/discord/guild`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
const command = (
  name: string,
  options: Record<string, string> = {},
  where: { guild?: string; id?: string } = {},
) =>
  JSON.stringify(
    discordCommand({
      id: where.id ?? `10000000000000000${++interactions}`,
      token: "interaction-token",
      name,
      options,
      channelId: where.guild ? "700000000000000001" : DM,
      user: discordUser(FRANK, "frank"),
      ...(where.guild ? { guildId: where.guild } : {}),
    }),
  );
const ephemeral = (content: unknown) =>
  interactionResponse({
    type: InteractionResponseType.ChannelMessageWithSource,
    data: { content: content as string, flags: MessageFlags.Ephemeral },
  });

beforeAll(async () => {
  const pair = generateKeyPairSync("ed25519");
  privateKey = pair.privateKey;
  publicKeyHex = Buffer.from(pair.publicKey.export({ format: "jwk" }).x as string, "base64url").toString(
    "hex",
  );
  discord = await startDiscordServer();
  calls = discord.calls;
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    configure: (config) => ({
      ...config,
      integrations: {
        ...ironclawdConfigSchema.parse({}).integrations,
        discord: {
          enabled: true,
          application_id: "123456789012345678",
          public_key: publicKeyHex,
          bot_token: "discord-bot-token",
          api_base_url: discord.url,
          bot: "guild",
          gateway: false,
        },
      },
    }),
  });
  call = api(h.url, await h.addUser("frank"));
}, 60_000);
afterAll(async () => {
  await h?.close();
  await discord?.close();
});

describe("the Discord channel through the warden", () => {
  it("registers its slash commands and answers Discord's PING, signed", async () => {
    // Registered once the warden listens, without holding its start up.
    while (!calls.some((c) => c.method === "PUT")) await new Promise((resolve) => setTimeout(resolve, 10));
    const registered = calls.find((c) => c.method === "PUT");
    expect(registered).toMatchObject({
      path: "/api/v10/applications/123456789012345678/commands",
      auth: "Bot discord-bot-token",
    });
    // Discord's own checks of a bulk overwrite held (the stand-in answers 400 otherwise).
    expect(commandRegistration(registered?.body as never).map((c) => c.name)).toEqual([
      "ask",
      "pair",
      "new",
      "stop",
      "feedback",
      "confirm",
      "reject",
      "revert",
    ]);
    const answer = await interact(JSON.stringify(discordPing()));
    expect([answer.status, await answer.json()]).toEqual([
      200,
      interactionResponse({ type: InteractionResponseType.Pong }),
    ]);
  });

  it("refuses unsigned, badly signed and stale interactions (401), as Discord checks before it takes the URL", async () => {
    const body = command("ask", { text: "hello" });
    const stranger = generateKeyPairSync("ed25519").privateKey;
    for (const headers of [
      {},
      signed(body, undefined, stranger),
      signed(body, Math.floor(Date.now() / 1000) - 600),
      signed(`${body} `),
    ])
      expect((await interact(body, headers)).status).toBe(401);
    expect(posts()).toEqual([]);
  });

  it("pairs by /pair in a DM, answers /ask there from the user's own agent, and keeps commands out of servers", async () => {
    const inServer = await interact(command("pair", { code: "ABCD2345" }, { guild: "600000000000000001" }));
    expect(await inServer.json()).toEqual(ephemeral(expect.stringMatching(/direct message/)));

    const pairing = (await (await call("POST", "/api/channels/pairing-code")).json()) as {
      data: { code: string; channels: Array<{ channel: string; how: string }> };
    };
    expect(pairing.data.channels).toContainEqual({
      channel: "discord:guild",
      how: expect.stringContaining(
        `In a direct message with the app, use /pair with the code ${pairing.data.code}`,
      ),
    });
    const paired = await interact(command("pair", { code: pairing.data.code }));
    expect(await paired.json()).toEqual(ephemeral("Sent to IronClaw."));
    await waitForPosts(1);
    expect(posts()[0]).toMatchObject({
      path: `/api/v10/channels/${DM}/messages`,
      body: { content: expect.stringMatching(/^Paired/), allowed_mentions: { parse: [] } },
    });

    h.model.enqueue(reply.text("A".repeat(2500)));
    const id = "199999999999999999";
    const asked = await interact(command("ask", { text: "write me a long one" }, { id }));
    expect(await asked.json()).toEqual(
      interactionResponse({
        type: InteractionResponseType.ChannelMessageWithSource,
        data: { content: "> write me a long one" },
      }),
    );
    await waitForPosts(3);
    expect(
      posts()
        .slice(1)
        .map((p) => (p.body as { content: string }).content.length),
    ).toEqual([2000, 500]);
    // The same interaction delivered again is not a second turn.
    const before = h.model.chatRequests().length;
    const again = await interact(command("ask", { text: "write me a long one" }, { id }));
    expect(await again.json()).toMatchObject({ data: { content: "Already taken." } });
    expect(h.model.chatRequests().length).toBe(before);
    const sessions = (await (await call("GET", "/api/sessions")).json()) as {
      data: Array<{ channel: string }>;
    };
    expect(sessions.data[0]).toMatchObject({ channel: "discord:guild" });

    // A settings proposal's id reaches the router's /confirm as the chat's user; this one does not exist.
    const posted = posts().length;
    const confirm = await interact(command("confirm", { id: "cfg_01JZZZZZZZZZZZZZZZZZZZZZZZ" }));
    expect(await confirm.json()).toEqual(ephemeral("Sent to IronClaw."));
    await waitForPosts(posted + 1);
    expect(posts().at(-1)).toMatchObject({
      body: { content: "There is no settings proposal cfg_01JZZZZZZZZZZZZZZZZZZZZZZZ." },
    });
  }, 60_000);
});
