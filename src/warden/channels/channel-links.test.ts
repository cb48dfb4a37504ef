import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "../../core/index.js";
import { ChannelLinks, migrateChannelTables } from "./channel-links.js";

let db: Database.Database;
let links: ChannelLinks;
let now: number;

beforeEach(() => {
  now = Date.parse("2026-02-01T12:00:00Z");
  db = new Database(":memory:");
  links = new ChannelLinks(db, { now: () => now });
});
afterEach(() => db.close());

const ada = { kind: "telegram", bot: "default", senderId: "42", chatId: "42", senderName: "Ada" };
const paired = (userId: string) => ({ paired: true, userId });
const UNKNOWN = { paired: false, why: "unknown_code" };
/** A wrong code of the right shape, as a guesser sends them. */
const wrong = (i: number) => `ABCD${String(2000 + i).replace(/[01]/g, "Z")}`;

describe("pairing codes", () => {
  it("are 8 characters without look-alikes (0/O, 1/I/L), different each time", () => {
    const codes = Array.from({ length: 50 }, () => links.issuePairingCode("user-ada"));
    for (const code of codes) expect(code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect(new Set(codes).size).toBe(50);
  });

  it("are stored only as a sha256 hash, bound to the user", () => {
    const code = links.issuePairingCode("user-ada");
    const rows = db.prepare("SELECT * FROM channel_pairing_codes").all();
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(rows).toMatchObject([
      { code_hash: createHash("sha256").update(code).digest("hex"), user_id: "user-ada", used_at: null },
    ]);
  });

  it("link the sender to the user who asked for the code", () => {
    const code = links.issuePairingCode("user-ada");
    expect(links.redeemPairingCode(code, ada)).toEqual(paired("user-ada"));
    expect(links.linkFor("telegram", "default", "42")).toEqual({
      ...ada,
      userId: "user-ada",
      linkedAt: "2026-02-01T12:00:00.000Z",
    });
    expect(links.linksForUser("user-ada")).toHaveLength(1);
    expect(links.linkFor("telegram", "other-bot", "42")).toBeUndefined();
  });

  it("work once", () => {
    const code = links.issuePairingCode("user-ada");
    expect(links.redeemPairingCode(code, ada)).toEqual(paired("user-ada"));
    expect(links.redeemPairingCode(code, { ...ada, senderId: "43" })).toEqual(UNKNOWN);
    expect(links.linkFor("telegram", "default", "43")).toBeUndefined();
  });

  it("expire after their TTL", () => {
    const code = links.issuePairingCode("user-ada", 60_000);
    now += 60_000;
    expect(links.redeemPairingCode(code, ada)).toEqual(UNKNOWN);
    const fresh = links.issuePairingCode("user-ada", 60_000);
    now += 59_999;
    expect(links.redeemPairingCode(fresh, ada)).toEqual(paired("user-ada"));
  });

  it("are accepted in lower case, with a dash or spaces", () => {
    const code = links.issuePairingCode("user-ada");
    const typed = ` ${code.slice(0, 4).toLowerCase()}-${code.slice(4)} `;
    expect(links.redeemPairingCode(typed, ada)).toEqual(paired("user-ada"));
  });

  it("refuse an empty user or a TTL that is not a positive integer", () => {
    expect(() => links.issuePairingCode("")).toThrow(InvalidInputError);
    expect(() => links.issuePairingCode("user-ada", 0)).toThrow(/ttlMs: must be a positive integer/);
  });

  it("are swept once dead, when the next one is issued", () => {
    const used = links.issuePairingCode("user-ada");
    links.redeemPairingCode(used, ada);
    links.issuePairingCode("user-ada", 1_000);
    now += 1_000;
    links.issuePairingCode("user-ada");
    expect(db.prepare("SELECT count(*) AS n FROM channel_pairing_codes").get()).toEqual({ n: 1 });
  });
});

describe("pairing limits", () => {
  it("refuse a sender after 5 wrong codes in 10 minutes, even with the right code, which stays unspent", () => {
    const code = links.issuePairingCode("user-ada");
    for (let i = 0; i < 5; i++) expect(links.redeemPairingCode(wrong(i), ada)).toEqual(UNKNOWN);
    expect(links.redeemPairingCode(code, ada)).toEqual({
      paired: false,
      why: "sender_limited",
      retryAfterSeconds: 600,
    });
    expect(links.linkFor("telegram", "default", "42")).toBeUndefined();
    // Another sender is not limited by this one, and the code was not spent by the refused attempt.
    expect(links.redeemPairingCode(code, { ...ada, senderId: "43", chatId: "43" })).toEqual(
      paired("user-ada"),
    );
  });

  it("let the sender try again once the window has passed; refusals meanwhile keep it refused", () => {
    const code = links.issuePairingCode("user-ada", 60 * 60_000);
    for (let i = 0; i < 5; i++) links.redeemPairingCode(wrong(i), ada);
    now += 9 * 60_000;
    for (let i = 0; i < 5; i++) links.redeemPairingCode(wrong(i), ada);
    now += 2 * 60_000;
    // The first five have left the window; the five refusals at 9 minutes have not.
    expect(links.redeemPairingCode(code, ada)).toMatchObject({ paired: false, why: "sender_limited" });
    now += 9 * 60_000;
    expect(links.redeemPairingCode(code, ada)).toEqual(paired("user-ada"));
  });

  it("refuse everyone on a bot after 30 wrong codes to it from any senders, and leave other bots alone", () => {
    const code = links.issuePairingCode("user-ada");
    // Six senders, five guesses each: none of them is over its own limit.
    for (let sender = 0; sender < 6; sender++)
      for (let i = 0; i < 5; i++)
        expect(links.redeemPairingCode(wrong(i), { ...ada, senderId: `s${sender}` })).toEqual(UNKNOWN);
    expect(links.redeemPairingCode(code, ada)).toMatchObject({ paired: false, why: "bot_limited" });
    expect(links.linkFor("telegram", "default", "42")).toBeUndefined();
    expect(links.redeemPairingCode(code, { ...ada, bot: "family" })).toEqual(paired("user-ada"));
  });

  it("are set per ChannelLinks", () => {
    const strict = new ChannelLinks(db, { now: () => now, pairingLimits: { perSender: { limit: 1 } } });
    expect(strict.redeemPairingCode(wrong(0), ada)).toEqual(UNKNOWN);
    expect(strict.redeemPairingCode(wrong(1), ada)).toMatchObject({ why: "sender_limited" });
  });
});

describe("links", () => {
  it("move to the new user, with a fresh session, when the sender redeems another user's code", () => {
    links.redeemPairingCode(links.issuePairingCode("user-ada"), ada);
    links.setSession("telegram", "default", "42", "s-1");
    links.redeemPairingCode(links.issuePairingCode("user-bob"), ada);
    expect(links.linkFor("telegram", "default", "42")).toMatchObject({ userId: "user-bob" });
    expect(links.linkFor("telegram", "default", "42")?.sessionId).toBeUndefined();
    expect(links.linksForUser("user-ada")).toEqual([]);
  });

  it("keep the session they are given until it is cleared", () => {
    links.redeemPairingCode(links.issuePairingCode("user-ada"), ada);
    links.setSession("telegram", "default", "42", "s-1");
    expect(new ChannelLinks(db).linkFor("telegram", "default", "42")?.sessionId).toBe("s-1");
    links.setSession("telegram", "default", "42", undefined);
    expect(links.linkFor("telegram", "default", "42")?.sessionId).toBeUndefined();
  });

  it("are gone after unlink", () => {
    links.redeemPairingCode(links.issuePairingCode("user-ada"), ada);
    expect(links.unlink("telegram", "default", "42")).toBe(true);
    expect(links.unlink("telegram", "default", "42")).toBe(false);
    expect(links.linkFor("telegram", "default", "42")).toBeUndefined();
  });
});

it("migrating twice keeps the rows", () => {
  links.redeemPairingCode(links.issuePairingCode("user-ada"), ada);
  migrateChannelTables(db);
  expect(links.linksForUser("user-ada")).toHaveLength(1);
});
