import { describe, expect, it } from "vitest";
import { createLogger } from "../../core/index.js";
import type { ChannelRouter, InboundMessage } from "./channel.js";
import { DiscordChannel } from "./discord.js";

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
