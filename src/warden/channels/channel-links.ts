import { createHash, randomInt } from "node:crypto";
import type Database from "better-sqlite3";
import { InvalidInputError } from "../../core/index.js";
import { RateLimiter, type RateLimiterOptions } from "../rate-limit.js";

/**
 * Who is who across channels, in the host database (host.db): one-time pairing codes a signed-in IronClaw user
 * asks for, and the links a redeemed code creates from a channel account (Telegram user 123 of bot "default")
 * to that IronClaw user, with the chat to answer in and the conversation it continues.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS channel_pairing_codes (
  code_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS channel_pairing_codes_by_expiry ON channel_pairing_codes(expires_at);
CREATE TABLE IF NOT EXISTS channel_links (
  kind TEXT NOT NULL,
  bot TEXT NOT NULL,
  sender_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  sender_name TEXT,
  session_id TEXT,
  linked_at TEXT NOT NULL,
  PRIMARY KEY (kind, bot, sender_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS channel_links_by_user ON channel_links(user_id);
`;

/** Creates the channel tables when missing; safe to run on every start. */
export function migrateChannelTables(db: Database.Database): void {
  db.exec(DDL);
}

// No 0/O, 1/I/L: the code is read off one screen and typed on a phone. 31^8 ≈ 8.5e11 codes; with the pairing
// limits below (at most 30 wrong codes per bot in 10 minutes, whoever sends them) finding one of ten live codes
// takes some 27,000 years on average, where Telegram's own 30 messages a second would have allowed it in 45.
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const PAIRING_CODE_LENGTH = 8;
export const DEFAULT_PAIRING_TTL_MS = 15 * 60_000;

/** A channel account linked to an IronClaw user. */
export interface ChannelLink {
  /** The channel kind, `telegram`. */
  kind: string;
  /** The bot (channel instance) name from the config. */
  bot: string;
  /** The sender's id on that channel (a Telegram user id). */
  senderId: string;
  userId: string;
  /** Where answers and job notices go. */
  chatId: string;
  senderName?: string;
  /** The conversation this chat continues; absent until the first turn. */
  sessionId?: string;
  linkedAt: string;
}

/** The channel side of a link, known when a code is redeemed. */
export type LinkTarget = Pick<ChannelLink, "kind" | "bot" | "senderId" | "chatId" | "senderName">;

interface LinkRow {
  kind: string;
  bot: string;
  sender_id: string;
  user_id: string;
  chat_id: string;
  sender_name: string | null;
  session_id: string | null;
  linked_at: string;
}

export interface ChannelLinksOptions {
  /** Milliseconds since the epoch; tests move it to expire codes. */
  now?: () => number;
  /** Wrong pairing codes allowed per sender and per bot, in a sliding window. */
  pairingLimits?: { perSender?: PairingLimit; perBot?: PairingLimit };
}

export type PairingLimit = Pick<RateLimiterOptions, "limit" | "windowMs">;

/** 5 wrong codes from one sender, 30 to one bot from everyone together, per 10 minutes. */
export const DEFAULT_PAIRING_LIMITS = {
  perSender: { limit: 5, windowMs: 10 * 60_000 },
  perBot: { limit: 30, windowMs: 10 * 60_000 },
} as const;

/**
 * What a pairing attempt came to. `sender_limited` / `bot_limited`: refused without looking at the code, which
 * stays unspent, so even the right code pairs nobody until the wait is over.
 */
export type PairingOutcome =
  | { paired: true; userId: string }
  | { paired: false; why: "unknown_code" }
  | { paired: false; why: "sender_limited" | "bot_limited"; retryAfterSeconds: number };

export class ChannelLinks {
  private readonly now: () => number;
  private readonly bySender: RateLimiter;
  private readonly byBot: RateLimiter;

  constructor(
    private readonly db: Database.Database,
    options: ChannelLinksOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    const limits = { ...DEFAULT_PAIRING_LIMITS, ...options.pairingLimits };
    this.bySender = new RateLimiter({ ...limits.perSender, now: this.now });
    this.byBot = new RateLimiter({ ...limits.perBot, now: this.now });
    migrateChannelTables(db);
  }

  /** A new one-time code for `userId`. Only its hash is stored: a copy of host.db pairs nobody. */
  issuePairingCode(userId: string, ttlMs: number = DEFAULT_PAIRING_TTL_MS): string {
    if (userId === "") throw new InvalidInputError("userId", "must not be empty");
    if (!Number.isInteger(ttlMs) || ttlMs <= 0)
      throw new InvalidInputError("ttlMs", "must be a positive integer");
    const code = Array.from({ length: PAIRING_CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(
      "",
    );
    const now = this.now();
    this.db.transaction(() => {
      // Housekeeping: dead codes are of no use to anyone, so they do not accumulate.
      this.db
        .prepare("DELETE FROM channel_pairing_codes WHERE expires_at <= ? OR used_at IS NOT NULL")
        .run(iso(now));
      this.db
        .prepare(
          "INSERT INTO channel_pairing_codes (code_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
        )
        .run(hashCode(code), userId, iso(now), iso(now + ttlMs));
    })();
    return code;
  }

  /**
   * Spends `code` and links the channel account to its user, replacing any earlier link of that account (the
   * code proves the new user agreed). Wrong codes are limited per sender and per bot: a sender over its limit,
   * or any sender while the bot is over its own, is refused before the code is looked at (so a flood of guesses
   * from many accounts is bounded too). Only wrong codes count; a refusal counts for the sender alone, so one
   * that keeps trying stays refused, and cannot by itself hold the bot shut for everyone else.
   */
  redeemPairingCode(code: string, target: LinkTarget): PairingOutcome {
    const senderKey = `${target.kind}:${target.bot}:${target.senderId}`;
    const botKey = `${target.kind}:${target.bot}`;
    const sender = this.bySender.peek(senderKey);
    if (!sender.allowed) {
      this.bySender.record(senderKey);
      return { paired: false, why: "sender_limited", retryAfterSeconds: sender.retryAfterSeconds };
    }
    const bot = this.byBot.peek(botKey);
    if (!bot.allowed) {
      this.bySender.record(senderKey);
      return { paired: false, why: "bot_limited", retryAfterSeconds: bot.retryAfterSeconds };
    }
    const userId = this.spendCode(code, target);
    if (userId !== undefined) return { paired: true, userId };
    this.bySender.record(senderKey);
    this.byBot.record(botKey);
    return { paired: false, why: "unknown_code" };
  }

  /** Undefined when the code is unknown, used or expired. */
  private spendCode(code: string, target: LinkTarget): string | undefined {
    const normalized = normalizeCode(code);
    if (normalized.length !== PAIRING_CODE_LENGTH) return undefined;
    const now = iso(this.now());
    return this.db.transaction(() => {
      // One statement checks and spends, so two redemptions racing cannot both succeed.
      const spent = this.db
        .prepare(
          `UPDATE channel_pairing_codes SET used_at = ?
           WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id`,
        )
        .get(now, hashCode(normalized), now) as { user_id: string } | undefined;
      if (!spent) return undefined;
      this.db
        .prepare(
          `INSERT OR REPLACE INTO channel_links
             (kind, bot, sender_id, user_id, chat_id, sender_name, session_id, linked_at)
           VALUES (?, ?, ?, ?, ?, ?, NULL, ?)`,
        )
        .run(
          target.kind,
          target.bot,
          target.senderId,
          spent.user_id,
          target.chatId,
          target.senderName ?? null,
          now,
        );
      return spent.user_id;
    })();
  }

  linkFor(kind: string, bot: string, senderId: string): ChannelLink | undefined {
    const row = this.db
      .prepare("SELECT * FROM channel_links WHERE kind = ? AND bot = ? AND sender_id = ?")
      .get(kind, bot, senderId) as LinkRow | undefined;
    return row && toLink(row);
  }

  linksForUser(userId: string): ChannelLink[] {
    const rows = this.db
      .prepare("SELECT * FROM channel_links WHERE user_id = ? ORDER BY linked_at, kind, bot, sender_id")
      .all(userId) as LinkRow[];
    return rows.map(toLink);
  }

  /** Removes a link; true when there was one. */
  unlink(kind: string, bot: string, senderId: string): boolean {
    return (
      this.db
        .prepare("DELETE FROM channel_links WHERE kind = ? AND bot = ? AND sender_id = ?")
        .run(kind, bot, senderId).changes > 0
    );
  }

  /** Records the conversation a chat continues; undefined starts a new one on the next message. */
  setSession(kind: string, bot: string, senderId: string, sessionId: string | undefined): void {
    this.db
      .prepare("UPDATE channel_links SET session_id = ? WHERE kind = ? AND bot = ? AND sender_id = ?")
      .run(sessionId ?? null, kind, bot, senderId);
  }
}

/** Codes are shown upper case; people type them in any case, with spaces or a dash in the middle. */
function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "");
}

function hashCode(code: string): string {
  return createHash("sha256").update(code).digest("hex");
}

// ISO strings of the same width sort like the instants they name, so SQL compares them directly.
function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function toLink(row: LinkRow): ChannelLink {
  return {
    kind: row.kind,
    bot: row.bot,
    senderId: row.sender_id,
    userId: row.user_id,
    chatId: row.chat_id,
    ...(row.sender_name === null ? {} : { senderName: row.sender_name }),
    ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    linkedAt: row.linked_at,
  };
}
