import { describe, expect, it } from "vitest";
import { createLogger } from "../../core/index.js";
import type { ChannelRouter, InboundMessage } from "./channel.js";
import { DiscordChannel } from "./discord.js";
import { ed25519PublicKey, ed25519Signed } from "./webhook-route.js";

const BOT = "700000000000000099";

/** A gateway-only bot whose router records what it was handed and whose HTTP API records what it was asked. */
function bot() {
  const received: InboundMessage[] = [];
  const requests: Array<{ url: string; body: unknown }> = [];
  const router = { receive: async (m: InboundMessage) => void received.push(m) } as unknown as ChannelRouter;
  const channel = new DiscordChannel({
    bot: "guild",
    applicationId: "123456789012345678",
    token: "unit-token",
    apiBaseUrl: "http://discord.invalid/api/v10",
    router,
    logger: createLogger("discord-test", { level: "silent" }),
    fetch: async (url, init) => {
      requests.push({ url: String(url), body: JSON.parse(String(init?.body)) });
      return new Response("{}", { status: 200 });
    },
  });
  return { channel, received, requests };
}

const message = (fields: Record<string, unknown>) => ({
  id: "1",
  type: 0,
  channel_id: "10",
  content: "hi",
  author: { id: "20", username: "frank" },
  mentions: [],
  ...fields,
});

describe("a Discord bot's gateway messages", () => {
  it("are turns when a person wrote them: in a DM, or mentioning the bot in a server", () => {
    const { channel, received } = bot();
    const take = (fields: Record<string, unknown>) => channel.handleGatewayMessage(message(fields), BOT);
    expect(take({ id: "1" })).toBe("accepted");
    expect(take({ id: "2", type: 7 })).toBe("ignored"); // a member joined
    expect(take({ id: "3", content: "   " })).toBe("ignored"); // an attachment alone
    expect(take({ id: "4", author: { id: "21", bot: true } })).toBe("ignored");
    expect(take({ id: "5", author: { id: BOT } })).toBe("ignored");
    expect(take({ id: "6", guild_id: "30", content: "just chatting" })).toBe("ignored");
    expect(
      take({ id: "7", type: 19, guild_id: "30", content: `<@!${BOT}> sum up`, mentions: [{ id: BOT }] }),
    ).toBe("accepted");
    // Delivered again after a resume: not a second turn.
    expect(take({ id: "1" })).toBe("ignored");
    expect(received.map((m) => [m.address, m.senderId, m.text, m.pairedOnly !== undefined])).toEqual([
      ["10", "20", "hi", false],
      ["10/7", "20", "sum up", true],
    ]);
  });

  it("name the field a malformed one lacks", () => {
    const { channel } = bot();
    const { author: _author, ...lacking } = message({});
    expect(() => channel.handleGatewayMessage(lacking, BOT)).toThrow(/author/);
  });

  it("are answered as a reply to the mention, pinging nobody", async () => {
    const { channel, requests } = bot();
    await channel.send("10/7", "done");
    await channel.send("11", "in the DM");
    expect(requests).toEqual([
      {
        url: "http://discord.invalid/api/v10/channels/10/messages",
        body: {
          content: "done",
          allowed_mentions: { parse: [] },
          message_reference: { message_id: "7", fail_if_not_exists: false },
        },
      },
      {
        url: "http://discord.invalid/api/v10/channels/11/messages",
        body: { content: "in the DM", allowed_mentions: { parse: [] } },
      },
    ]);
  });
});

// RFC 8032 §7.1, TESTs 1–3 (https://www.rfc-editor.org/rfc/rfc8032#section-7.1): public key, message and
// signature, hex. Discord's docs give no signed example; these check the Ed25519 the interactions URL uses.
const RFC_8032 = [
  {
    key: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    message: "",
    signature:
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  },
  {
    key: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "72",
    signature:
      "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  },
  {
    key: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    message: "af82",
    signature:
      "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
  },
];

describe("a Discord interaction's signature", () => {
  it("is checked as RFC 8032's test vectors say, the key taken from hex as Discord shows it", () => {
    for (const { key, message, signature } of RFC_8032) {
      const publicKey = ed25519PublicKey(key);
      expect(ed25519Signed(publicKey, Buffer.from(message, "hex"), signature)).toBe(true);
      // Upper-case hex is the same signature.
      expect(ed25519Signed(publicKey, Buffer.from(message, "hex"), signature.toUpperCase())).toBe(true);
      // One bit off in the message or the signature, or another vector's key: not signed.
      expect(ed25519Signed(publicKey, Buffer.from(`${message}00`, "hex"), signature)).toBe(false);
      const flipped = (Number.parseInt(signature.slice(0, 2), 16) ^ 1).toString(16).padStart(2, "0");
      expect(ed25519Signed(publicKey, Buffer.from(message, "hex"), `${flipped}${signature.slice(2)}`)).toBe(
        false,
      );
      const other = RFC_8032.find((v) => v.key !== key)?.key ?? "";
      expect(ed25519Signed(ed25519PublicKey(other), Buffer.from(message, "hex"), signature)).toBe(false);
      expect(ed25519Signed(publicKey, Buffer.from(message, "hex"), signature.slice(0, 126))).toBe(false);
    }
  });

  it("is what the interactions URL checks, over the timestamp and the raw body, within 5 minutes", () => {
    const { key, signature } = RFC_8032[0] as { key: string; signature: string };
    const router = { receive: async () => undefined } as unknown as ChannelRouter;
    // TEST 1 signs the empty message: an empty timestamp and body, which the route refuses before any math.
    const channel = new DiscordChannel({
      bot: "guild",
      applicationId: "1",
      publicKey: key,
      token: "t",
      apiBaseUrl: "http://discord.invalid/api/v10",
      router,
      now: () => 1_800_000_000,
    });
    expect(channel.refusal(signature, "", Buffer.alloc(0))).toMatch(/not a number/);
    expect(channel.refusal(signature, "1800000000", Buffer.alloc(0))).toMatch(/does not match/);
    expect(channel.refusal("zz", "1800000000", Buffer.alloc(0))).toMatch(/not a signature/);
  });
});
