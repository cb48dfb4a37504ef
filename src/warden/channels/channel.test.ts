import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../core/index.js";
import type { ChatEvent, ChatService, ChatTurnInput } from "../chat-events.js";
import {
  type Channel,
  ChannelRouter,
  PAIRING_HELP,
  parseCommand,
  STRANGER_WINDOW_MS,
  splitMessage,
} from "./channel.js";
import { ChannelLinks } from "./channel-links.js";

describe("splitMessage", () => {
  it("leaves a message within the limit alone", () => {
    expect(splitMessage("hello", 4096)).toEqual(["hello"]);
  });

  it("cuts text without breaks at the limit, losing nothing", () => {
    const text = "y".repeat(4500);
    const pieces = splitMessage(text, 4096);
    expect(pieces.map((p) => p.length)).toEqual([4096, 404]);
    expect(pieces.join("")).toBe(text);
  });

  it("prefers a line break, then a space, in the second half of a piece", () => {
    expect(splitMessage("aaaa bbb\ncc dd", 10)).toEqual(["aaaa bbb", "cc dd"]);
    expect(splitMessage("aaaa bbbb cc", 10)).toEqual(["aaaa bbbb", "cc"]);
    // A break early in the piece would waste most of it; the hard cut wins.
    expect(splitMessage("a bbbbbbbbbbbbb", 10)).toEqual(["a bbbbbbbb", "bbbbb"]);
  });

  it("never separates the halves of a surrogate pair", () => {
    const pieces = splitMessage(`${"z".repeat(9)}😀tail`, 10);
    expect(pieces).toEqual(["z".repeat(9), "😀tail"]);
  });
});

describe("parseCommand", () => {
  it("reads /start CODE, /pair@Bot CODE and plain text", () => {
    expect(parseCommand("/start AB12CD34")).toEqual({ name: "start", arg: "AB12CD34" });
    expect(parseCommand(" /PAIR@IronClawBot  ab12 cd34 ")).toEqual({ name: "pair", arg: "ab12 cd34" });
    expect(parseCommand("/new")).toEqual({ name: "new", arg: "" });
    expect(parseCommand("pair me please")).toBeUndefined();
  });
});

/** A channel that records what it would have sent. */
class MemoryChannel implements Channel {
  readonly kind = "memory";
  readonly name = "test";
  readonly maxMessageLength = 100;
  readonly sent: Array<{ address: string; text: string }> = [];
  pairingInstruction(code: string): string {
    return `pair ${code}`;
  }
  async send(address: string, text: string): Promise<boolean> {
    this.sent.push({ address, text });
    return true;
  }
}

/** A chat core whose turns take `delayMs` per message (given in the text as `slow`), or throw on `boom`. */
class DelayedChat implements ChatService {
  readonly inputs: ChatTurnInput[] = [];
  async *turn(input: ChatTurnInput): AsyncIterable<ChatEvent> {
    this.inputs.push(input);
    yield { type: "session", sessionId: input.sessionId ?? `s-${this.inputs.length}` };
    if (input.text === "boom") throw new Error("cell connection lost");
    if (input.text === "hang") {
      // A turn that runs until it is stopped, and then says so, as the chat core does.
      await new Promise((resolve) => input.signal?.addEventListener("abort", resolve, { once: true }));
      yield {
        type: "done",
        text: "",
        usage: { input_tokens: 0, output_tokens: 0 },
        stopReason: "aborted",
        error: "the turn was stopped",
      };
      return;
    }
    if (input.text.startsWith("slow")) await new Promise((r) => setTimeout(r, 50));
    yield {
      type: "done",
      text: `re: ${input.text}`,
      usage: { input_tokens: 0, output_tokens: 0 },
      stopReason: "stop",
    };
  }
  onJobNotice(): () => void {
    return () => {};
  }
  onConversationPost(): () => void {
    return () => {};
  }
}

let db: Database.Database;
let links: ChannelLinks;
let chat: DelayedChat;
let router: ChannelRouter;
let channel: MemoryChannel;
let audited: Array<{ userId?: string | null; actor: string; action: string; detail?: object }>;

beforeEach(() => {
  db = new Database(":memory:");
  links = new ChannelLinks(db);
  chat = new DelayedChat();
  channel = new MemoryChannel();
  audited = [];
  router = new ChannelRouter({
    chat,
    links,
    logger: createLogger("test", { level: "silent" }),
    maxQueuedPerChat: 3,
    audit: { record: (entry) => audited.push(entry) },
  });
  router.register(channel);
  links.redeemPairingCode(links.issuePairingCode("user-ada"), {
    kind: "memory",
    bot: "test",
    senderId: "u1",
    chatId: "c1",
  });
});
afterEach(async () => {
  await router.close();
  db.close();
});

const from = (text: string, address = "c1", senderId = "u1") => ({ channel, address, senderId, text });

describe("ChannelRouter", () => {
  it("answers the messages of one chat in the order they came, one at a time", async () => {
    void router.receive(from("slow first"));
    void router.receive(from("second"));
    await router.idle();
    expect(channel.sent.map((m) => m.text)).toEqual(["re: slow first", "re: second"]);
    expect(chat.inputs.map((i) => i.sessionId)).toEqual([undefined, "s-1"]);
  });

  it("keeps other chats moving while one is busy", async () => {
    links.redeemPairingCode(links.issuePairingCode("user-bob"), {
      kind: "memory",
      bot: "test",
      senderId: "u2",
      chatId: "c2",
    });
    void router.receive(from("slow ada"));
    void router.receive(from("quick bob", "c2", "u2"));
    await router.idle();
    expect(channel.sent.map((m) => m.text)).toEqual(["re: quick bob", "re: slow ada"]);
  });

  it("stops the chat's running turn on /stop at once, not behind it, and says when nothing runs", async () => {
    links.redeemPairingCode(links.issuePairingCode("user-bob"), {
      kind: "memory",
      bot: "test",
      senderId: "u2",
      chatId: "c2",
    });
    const hanging = router.receive(from("hang"));
    const other = router.receive(from("hang", "c2", "u2"));
    // Both turns have started.
    while (chat.inputs.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    await router.receive(from("/stop"));
    await hanging;
    expect(channel.sent).toEqual([{ address: "c1", text: "the turn was stopped" }]);
    // The other chat's turn runs on; a /stop with nothing running says so.
    await router.receive(from("/stop"));
    expect(channel.sent.at(-1)).toEqual({ address: "c1", text: "Nothing is running." });
    await router.receive(from("/stop", "c2", "u2"));
    await other;
    expect(channel.sent.filter((m) => m.address === "c2")).toEqual([
      { address: "c2", text: "the turn was stopped" },
    ]);
    // A stranger's /stop stops nothing.
    await router.receive(from("/stop", "c9", "u9"));
    expect(channel.sent.at(-1)).toEqual({ address: "c9", text: PAIRING_HELP });
  });

  it("records every message that got no turn in the audit: a stranger's, a wrong code's, a paired-only place's", async () => {
    await router.receive(from("hello?", "c9", "u9"));
    await router.receive(from("/pair WRONGCODE", "c9", "u9"));
    await router.receive({ ...from("@app hi", "c1/t1", "u8"), pairedOnly: "Message me directly." });
    expect(channel.sent.slice(-1)).toEqual([{ address: "c1/t1", text: "Message me directly." }]);
    expect(audited).toEqual([
      {
        userId: null,
        actor: "memory:test:u9",
        action: "channel.refused",
        detail: { channel: "memory:test", address: "c9", why: "not paired" },
      },
      {
        userId: null,
        actor: "memory:test:u9",
        action: "channel.refused",
        detail: { channel: "memory:test", address: "c9", why: "pairing refused: unknown_code" },
      },
      {
        userId: null,
        actor: "memory:test:u8",
        action: "channel.refused",
        detail: { channel: "memory:test", address: "c1/t1", why: "not paired" },
      },
    ]);
  });

  it("answers and audits a stranger once per window, counting what came meanwhile, so a flood grows neither", async () => {
    let now = 1_800_000_000_000;
    const clocked = new ChannelRouter({
      chat,
      links,
      logger: createLogger("test", { level: "silent" }),
      audit: { record: (entry) => audited.push(entry) },
      now: () => now,
    });
    const other = new MemoryChannel();
    clocked.register(other);
    const stranger = (text: string, address = "c9") =>
      clocked.receive({ channel: other, address, senderId: "u9", text });
    for (let i = 0; i < 5; i++) await stranger(`hello ${i}?`);
    // Somewhere else (a channel's thread) the same stranger is told once there too.
    await stranger("hello?", "c9/t1");
    expect(other.sent.map((m) => m.address)).toEqual(["c9", "c9/t1"]);
    expect(audited.map((a) => a.detail)).toEqual([
      { channel: "memory:test", address: "c9", why: "not paired" },
      { channel: "memory:test", address: "c9/t1", why: "not paired" },
    ]);
    // A pairing attempt is still answered within the window (wrong codes have their own limit).
    await stranger("/pair WRONGCODE");
    expect(other.sent.at(-1)?.text).toMatch(/unknown, used or expired/);
    now += STRANGER_WINDOW_MS;
    await stranger("still there?");
    expect(other.sent.map((m) => m.address)).toEqual(["c9", "c9/t1", "c9", "c9"]);
    expect(audited.at(-1)?.detail).toEqual({
      channel: "memory:test",
      address: "c9",
      why: "not paired",
      unanswered: 4,
    });
    const code = links.issuePairingCode("user-bo");
    await stranger(`/pair ${code}`);
    expect(other.sent.at(-1)?.text).toMatch(/^Paired/);
    await clocked.close();
  });

  it("takes a stranger's mentions where others read as one place, each in its own thread though they are", async () => {
    for (let i = 0; i < 4; i++)
      await router.receive({ ...from(`@app hi ${i}`, `c1/m${i}`, "u7"), pairedOnly: "Message me directly." });
    expect(channel.sent.map((m) => m.address)).toEqual(["c1/m0"]);
    expect(audited).toHaveLength(1);
  });

  it("answers a paired user's /stop in a mention without a turn: it stops nothing there", async () => {
    await router.receive({ ...from("/stop", "c1/m9"), pairedOnly: "Message me directly." });
    expect(chat.inputs).toEqual([]);
    expect(channel.sent.at(-1)?.text).toMatch(/send \/stop in your direct chat/);
  });

  it("says something went wrong when the turn throws, and keeps the chat usable", async () => {
    await router.receive(from("boom"));
    await router.receive(from("again"));
    expect(channel.sent.map((m) => m.text)).toEqual([
      "Something went wrong on the IronClaw host. Please try again.",
      "re: again",
    ]);
  });

  it("starts a new conversation on /new and forgets the chat on /unpair", async () => {
    await router.receive(from("hi"));
    await router.receive(from("/new"));
    await router.receive(from("hi again"));
    expect(chat.inputs.map((i) => i.sessionId)).toEqual([undefined, undefined]);
    await router.receive(from("/unpair"));
    expect(links.linksForUser("user-ada")).toEqual([]);
  });

  it("refuses messages beyond the per-chat queue limit instead of holding them", async () => {
    const all = ["slow 1", "2", "3", "4"].map((t) => router.receive(from(t)));
    await Promise.all(all);
    await router.idle();
    expect(channel.sent.map((m) => m.text)).toEqual([
      "Still working on your earlier messages; send this one again in a moment.",
      "re: slow 1",
      "re: 2",
      "re: 3",
    ]);
  });

  it("refuses a second channel with the same kind and name", () => {
    expect(() => router.register(new MemoryChannel())).toThrow(/memory:test is already registered/);
  });
});
