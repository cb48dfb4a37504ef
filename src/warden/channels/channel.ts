import { DEFAULT_MAX_MESSAGE_BYTES } from "../../contracts/index.js";
import { ConflictError, createLogger, type Logger } from "../../core/index.js";
import type { ChatService, ConversationPost, JobNotice } from "../chat-events.js";
import { checkMessageSize, MessageTooLargeError } from "../message-limit.js";
import type { ChannelLink, ChannelLinks, PairingOutcome } from "./channel-links.js";

/** Where a channel answers: a Telegram chat id, a Slack conversation id… */
export type ChannelAddress = string;

/**
 * A messaging channel (seed 003 §16.1): Telegram today; Slack or WhatsApp are another implementation of this
 * and reuse the router below (pairing, sessions, ordering, job notices) unchanged.
 */
export interface Channel {
  /** `telegram`, `slack`… */
  readonly kind: string;
  /** The instance from the config (a bot name), so one host can run several bots of a kind. */
  readonly name: string;
  /** The longest message the channel accepts, in UTF-16 code units (Telegram: 4096). */
  readonly maxMessageLength: number;
  /** What an unpaired sender is told, when the channel spells pairing otherwise than `/pair <code>`. */
  readonly pairingHelp?: string;
  /** How a person pairs here with `code`, in one sentence (the UI shows it beside the code). */
  pairingInstruction(code: string): string;
  /** Sends one message; false when it could not be delivered (already logged). Never throws. */
  send(address: ChannelAddress, text: string, options?: SendOptions): Promise<boolean>;
}

/** A button under a message (Telegram's inline keyboard); pressing it comes back as the command `data` names. */
export interface ChannelButton {
  text: string;
  /** `ack:<id>` comes back as `/ack <id>`; at most 64 bytes (Telegram's callback_data limit). */
  data: string;
}

export interface SendOptions {
  buttons?: ChannelButton[];
}

/** A slash command a linked chat may send beyond the router's own (`/ack <id>`), answered with one message. */
export type ChannelCommand = (link: ChannelLink, arg: string) => Promise<string>;

/** A text message someone sent to a channel, already validated by that channel. */
export interface InboundMessage {
  channel: Channel;
  address: ChannelAddress;
  senderId: string;
  senderName?: string;
  text: string;
  /**
   * Set where others read the answers (a Slack channel's thread): only a paired sender gets a turn, anyone else
   * this one line, and no pairing happens there (its notices would follow into that place).
   */
  pairedOnly?: string;
}

export interface ChannelRouterOptions {
  chat: ChatService;
  links: ChannelLinks;
  logger?: Logger;
  /** Messages a chat may have waiting; more are refused, so a flood cannot grow memory without bound. */
  maxQueuedPerChat?: number;
  /** The largest message passed to an agent ([limits] max_message_bytes); a larger one is answered with why. */
  maxMessageBytes?: number;
  /** Commands by name, for linked chats only (an unpaired chat is asked to pair first). */
  commands?: Record<string, ChannelCommand>;
  /** Where refusals are recorded (the warden's audit); without it they are only logged. */
  audit?: {
    record(entry: { userId?: string | null; actor: string; action: string; detail?: object }): unknown;
  };
  /** Milliseconds since the epoch (tests move the clock). */
  now?: () => number;
}

/**
 * A stranger is answered and audited once per this window; what they send meanwhile gets neither (it is counted,
 * and the next audited refusal says how many went unanswered). A flood from one sender cannot grow the append-only
 * audit, nor make the bot post a reply for every message.
 */
export const STRANGER_WINDOW_MS = 10 * 60 * 1000;
/** Strangers remembered for the window at once; the oldest is forgotten first (it may be answered again). */
const STRANGERS_KEPT = 10_000;

export const PAIRING_HELP =
  "This chat is not paired with IronClaw yet. Ask IronClaw for a pairing code, then send: /pair <code>";
const PAIRED = "Paired. Messages you send here now go to your IronClaw agent.";
const BAD_CODE = "That pairing code is unknown, used or expired. Ask IronClaw for a new one.";
const FAILED = "Something went wrong on the IronClaw host. Please try again.";

/** What a pairing attempt is answered with; a refusal says that nothing was paired and how long to wait. */
function pairingReply(outcome: PairingOutcome): string {
  if (outcome.paired) return PAIRED;
  if (outcome.why === "unknown_code") return BAD_CODE;
  const wait =
    outcome.retryAfterSeconds > 90
      ? `${Math.ceil(outcome.retryAfterSeconds / 60)} minutes`
      : `${outcome.retryAfterSeconds} seconds`;
  return outcome.why === "sender_limited"
    ? `Too many wrong pairing codes from this chat. Nothing was paired; wait ${wait}, then send /pair <code> again.`
    : `Too many wrong pairing codes were sent to this bot just now. Nothing was paired; wait ${wait}, then try again.`;
}

/**
 * Routes inbound channel messages to users' agents and relays their answers and job notices back. Messages of
 * one chat are handled one at a time, in arrival order; different chats run concurrently.
 */
export class ChannelRouter {
  private readonly chat: ChatService;
  private readonly links: ChannelLinks;
  private readonly log: Logger;
  private readonly maxQueued: number;
  private readonly maxMessageBytes: number;
  private readonly commands: ReadonlyMap<string, ChannelCommand>;
  private readonly channels = new Map<string, Channel>();
  private readonly queues = new Map<string, { tail: Promise<void>; size: number }>();
  /** The turn each chat is running, by queue key: what `/stop` aborts. */
  private readonly running = new Map<string, AbortController>();
  private readonly audit: ChannelRouterOptions["audit"];
  private readonly now: () => number;
  /** Strangers answered within the window, by channel, sender and place: when it ends, and what went unanswered. */
  private readonly strangers = new Map<string, { until: number; unanswered: number }>();
  private readonly aborter = new AbortController();
  private readonly stopNotices: () => void;
  private readonly stopPosts: () => void;
  private closed = false;

  constructor(options: ChannelRouterOptions) {
    this.chat = options.chat;
    this.links = options.links;
    this.log = options.logger ?? createLogger("channels");
    this.maxQueued = options.maxQueuedPerChat ?? 20;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.commands = new Map(Object.entries(options.commands ?? {}));
    this.audit = options.audit;
    this.now = options.now ?? Date.now;
    this.stopNotices = this.chat.onJobNotice((notice) => this.relayJobNotice(notice));
    this.stopPosts = this.chat.onConversationPost((post) => this.relayPost(post));
  }

  /** Makes a channel reachable for job notices; each (kind, name) once. */
  register(channel: Channel): void {
    const key = channelKey(channel.kind, channel.name);
    if (this.channels.has(key)) throw new ConflictError(`channel ${key} is already registered`);
    this.channels.set(key, channel);
  }

  /** Queues a message behind the chat's earlier ones; resolves once it is answered. Never rejects. */
  receive(message: InboundMessage): Promise<void> {
    const { channel, address } = message;
    // After close the chat service may be gone too; Telegram will not resend, but the user can.
    if (this.closed) return Promise.resolve();
    // `/stop` cannot wait behind the turn it is meant to stop.
    if (parseCommand(message.text)?.name === "stop") return this.stop(message);
    const queued = this.enqueue(channel, address, () => this.handle(message));
    if (queued) return queued;
    this.log.warn(
      { channel: channelKey(channel.kind, channel.name), address },
      "chat queue full, message dropped",
    );
    return channel
      .send(address, "Still working on your earlier messages; send this one again in a moment.")
      .then(() => undefined);
  }

  /** Whether `senderId` on `channel` is paired with a user (a channel's own notices go to paired people only). */
  isPaired(channel: Channel, senderId: string): boolean {
    return this.links.linkFor(channel.kind, channel.name, senderId) !== undefined;
  }

  /** Resolves when every queued message and notice has been handled (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()].map((q) => q.tail));
  }

  /** Stops relaying notices, aborts turns in flight and waits for the queues to drain. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopNotices();
    this.stopPosts();
    this.aborter.abort();
    await this.idle();
  }

  /** Aborts the chat's running turn (its end says so), or says that nothing runs. */
  private async stop(message: InboundMessage): Promise<void> {
    const { channel, address, senderId } = message;
    const link = this.links.linkFor(channel.kind, channel.name, senderId);
    if (!link || message.pairedOnly !== undefined) {
      await this.handle(message);
      return;
    }
    const turn = this.running.get(queueKey(channel, address));
    if (turn) turn.abort();
    else await this.sendAll(channel, address, "Nothing is running.");
  }

  private enqueue(channel: Channel, address: string, task: () => Promise<void>): Promise<void> | undefined {
    const key = queueKey(channel, address);
    const queue = this.queues.get(key) ?? { tail: Promise.resolve(), size: 0 };
    if (queue.size >= this.maxQueued) return undefined;
    queue.size++;
    queue.tail = queue.tail
      .then(task)
      .catch((err: unknown) => this.log.error({ err, chat: key }, "channel message failed"))
      .finally(() => {
        if (--queue.size === 0) this.queues.delete(key);
      });
    this.queues.set(key, queue);
    return queue.tail;
  }

  private async handle(message: InboundMessage): Promise<void> {
    const answer = await this.answer(message);
    if (answer !== undefined) await this.sendAll(message.channel, message.address, answer);
  }

  /**
   * What to say back: the pairing outcome, a command's confirmation, or the agent's answer; undefined for a
   * stranger already answered within the window.
   */
  private async answer(message: InboundMessage): Promise<string | undefined> {
    const { channel, address, senderId, senderName } = message;
    const command = parseCommand(message.text);
    const pairing = (command?.name === "start" || command?.name === "pair") && command.arg !== "";
    if (
      message.pairedOnly !== undefined &&
      (pairing || !this.links.linkFor(channel.kind, channel.name, senderId))
    ) {
      return this.strangerRefused(
        message,
        pairing ? "pairing where others read along" : "not paired",
        message.pairedOnly,
      );
    }
    if (command && pairing) {
      const target = { kind: channel.kind, bot: channel.name, senderId, chatId: address };
      const outcome = this.links.redeemPairingCode(command.arg, {
        ...target,
        ...(senderName === undefined ? {} : { senderName }),
      });
      const at = { channel: channelKey(channel.kind, channel.name), senderId };
      if (outcome.paired || outcome.why === "unknown_code")
        this.log.info({ ...at, paired: outcome.paired }, "pairing attempt");
      else this.log.warn({ ...at, refused: outcome.why }, "pairing attempt refused: too many wrong codes");
      if (!outcome.paired) this.refused(message, `pairing refused: ${outcome.why}`);
      return pairingReply(outcome);
    }
    const link = this.links.linkFor(channel.kind, channel.name, senderId);
    if (!link) return this.strangerRefused(message, "not paired", channel.pairingHelp ?? PAIRING_HELP);
    const extra = command && this.commands.get(command.name);
    if (extra) return extra(link, command.arg);
    switch (command?.name) {
      case "start":
        return PAIRED;
      case "unpair":
        this.links.unlink(link.kind, link.bot, link.senderId);
        return "Unpaired. This chat no longer reaches IronClaw.";
      case "stop":
        // Only a mention where others read gets here (a chat's /stop skips the queue): nothing runs for it.
        return "Nothing runs here to stop; send /stop in your direct chat.";
      case "new":
        this.links.setSession(link.kind, link.bot, link.senderId, undefined);
        return "Started a new conversation.";
      default:
        return this.runTurn(link, message);
    }
  }

  /** The turn's answer, or a sentence saying why there is none; the session is kept for the next message. */
  private async runTurn(link: ChannelLink, message: InboundMessage): Promise<string> {
    let sessionId = link.sessionId;
    try {
      checkMessageSize(message.text, "message", this.maxMessageBytes);
    } catch (error) {
      if (error instanceof MessageTooLargeError)
        return `This message was not sent to your agent: ${error.message}.`;
      throw error;
    }
    const key = queueKey(message.channel, message.address);
    const turn = new AbortController();
    this.running.set(key, turn);
    try {
      for await (const event of this.chat.turn({
        userId: link.userId,
        ...(sessionId === undefined ? {} : { sessionId }),
        text: message.text,
        channel: channelKey(link.kind, link.bot),
        signal: AbortSignal.any([this.aborter.signal, turn.signal]),
      })) {
        if (event.type === "session" && event.sessionId !== sessionId) {
          sessionId = event.sessionId;
          this.links.setSession(link.kind, link.bot, link.senderId, sessionId);
        } else if (event.type === "done") {
          return event.error ?? (event.text.trim() === "" ? "(The agent gave no answer.)" : event.text);
        }
      }
      this.log.error({ userId: link.userId }, "chat turn ended without done");
    } catch (err) {
      this.log.error({ err, userId: link.userId }, "chat turn failed");
    } finally {
      this.running.delete(key);
    }
    return FAILED;
  }

  /**
   * A stranger's message: refused and answered with `reply` once per window; within it, neither answered nor
   * audited, only counted (the next audited refusal carries the count as `unanswered`).
   */
  private strangerRefused(message: InboundMessage, why: string, reply: string): string | undefined {
    // Per sender and place: a direct chat by its address; every mention where others read (each its own
    // thread or reply, a new address each time) as one place, so a stream of mentions is answered once too.
    const place = message.pairedOnly === undefined ? message.address : "mentions";
    const key = `${channelKey(message.channel.kind, message.channel.name)}\n${message.senderId}\n${place}`;
    const now = this.now();
    const seen = this.strangers.get(key);
    if (seen && now < seen.until) {
      seen.unanswered++;
      return undefined;
    }
    this.strangers.delete(key);
    this.strangers.set(key, { until: now + STRANGER_WINDOW_MS, unanswered: 0 });
    if (this.strangers.size > STRANGERS_KEPT) {
      const oldest = this.strangers.keys().next().value;
      if (oldest !== undefined) this.strangers.delete(oldest);
    }
    this.refused(message, why, seen?.unanswered ? { unanswered: seen.unanswered } : {});
    return reply;
  }

  /** A message that got no turn: logged, and recorded in the audit with who sent it from where. */
  private refused(message: InboundMessage, why: string, extra: Record<string, unknown> = {}): void {
    const channel = channelKey(message.channel.kind, message.channel.name);
    this.log.info({ channel, senderId: message.senderId, why, ...extra }, "channel message refused");
    try {
      this.audit?.record({
        userId: null,
        actor: `${channel}:${message.senderId}`,
        action: "channel.refused",
        detail: { channel, address: message.address, why, ...extra },
      });
    } catch (err) {
      this.log.error({ err }, "channel refusal not audited");
    }
  }

  /**
   * Sends a notice (a budget alert, a job's result) to every chat linked to the user (or those `only` keeps),
   * behind what each chat has queued, with `buttons` under its last piece. Never throws: it is called from
   * emitters whose work must not fail because a chat is unreachable.
   */
  notify(
    userId: string,
    text: string,
    only?: (link: ChannelLink) => boolean,
    buttons?: ChannelButton[],
  ): void {
    if (this.closed) return;
    try {
      for (const link of this.links.linksForUser(userId)) {
        if (only && !only(link)) continue;
        // A link to a bot that is no longer configured has nowhere to go.
        const channel = this.channels.get(channelKey(link.kind, link.bot));
        if (channel)
          this.enqueue(channel, link.chatId, () => this.sendAll(channel, link.chatId, text, buttons));
      }
    } catch (err) {
      this.log.error({ err, userId }, "notice not relayed");
    }
  }

  /**
   * A message posted to a conversation outside a turn (a command run's progress or reply), sent to the user's
   * chats on the bot that conversation came from; a conversation of the UI or the API stays there.
   */
  private relayPost(post: ConversationPost): void {
    const text = post.kind === "reply" ? post.text : `${post.source} ${post.ref}: ${post.text}`;
    this.notify(post.userId, text, (link) => channelKey(link.kind, link.bot) === post.channel);
  }

  private relayJobNotice(notice: JobNotice): void {
    this.notify(
      notice.userId,
      notice.status === "succeeded"
        ? `Job ${notice.jobId} succeeded${notice.resultRef ? `: ${notice.resultRef}` : "."}`
        : `Job ${notice.jobId} failed: ${notice.error ?? "no reason given"}`,
    );
  }

  private async sendAll(
    channel: Channel,
    address: string,
    text: string,
    buttons?: ChannelButton[],
  ): Promise<void> {
    const pieces = splitMessage(text, channel.maxMessageLength);
    for (const [index, piece] of pieces.entries()) {
      const last = index === pieces.length - 1 && buttons !== undefined;
      if (!(await channel.send(address, piece, last ? { buttons } : undefined))) return;
    }
  }
}

/** One chat's queue (and running turn): its channel and its address there. */
function queueKey(channel: Channel, address: string): string {
  return `${channelKey(channel.kind, channel.name)}:${address}`;
}

/** `telegram:default`: the channel label a turn carries and the key of a registered channel. */
export function channelKey(kind: string, name: string): string {
  return `${kind}:${name}`;
}

/** A slash command (`/pair ABCD2345`, `/start@MyBot CODE` as groups send it); undefined for plain text. */
export function parseCommand(text: string): { name: string; arg: string } | undefined {
  const match = /^\/([A-Za-z]+)(?:@\w+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), arg: (match[2] ?? "").trim() };
}

/**
 * Splits text into pieces of at most `limit` code units, preferring a line break, then a space, in the second
 * half of each piece; the break itself is dropped. Never cuts a surrogate pair; whitespace-only pieces are left
 * out because channels refuse empty messages.
 */
export function splitMessage(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit + 1);
    const at = [window.lastIndexOf("\n"), window.lastIndexOf(" ")].find((i) => i > limit / 2);
    if (at !== undefined) {
      pieces.push(rest.slice(0, at));
      rest = rest.slice(at + 1);
    } else {
      const code = rest.charCodeAt(limit - 1);
      const cut = code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
      pieces.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
  }
  pieces.push(rest);
  return pieces.filter((p) => p.trim() !== "");
}
