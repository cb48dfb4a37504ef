import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CalendarResults,
  type IntegrationRequest,
  integrationRequestSchema,
  ironclawdConfigSchema,
} from "../../src/contracts/index.js";
import { createLogger, parseTomlConfig } from "../../src/core/index.js";
import type { AuditEntry } from "../../src/warden/audit-store.js";
import { createHostIntegrations, type IntegrationDesk } from "../../src/warden/integrations/index.js";
import { CALDAV_HOST, type Radicale, radicaleMissing, startRadicale } from "../support/radicale.js";

// The calendar tools' warden side against a real Radicale over HTTPS: the host's integrations as the daemon
// builds them (config, the user's CALDAV_PASSWORD secret, the egress module's guarded fetch with the test's
// name mapping), each request checked as a frame first. What the model would read comes back; the password never.

const PASSWORD = "pw-alice-4b1e9d-never-shown";
const users = { alice: PASSWORD, bob: "pw-bob" };

let radicale: Radicale;
let desk: IntegrationDesk;
const audits: AuditEntry[] = [];
const secrets: Record<string, Record<string, string>> = { alice: { CALDAV_PASSWORD: PASSWORD } };
let msg = 1;

function deskFor(url: string, allowPrivate: boolean): IntegrationDesk {
  const config = parseTomlConfig(
    `[integrations.calendar]\nurl = "${url}"\n[egress]\nallow_private = ${allowPrivate}\n`,
    ironclawdConfigSchema,
  );
  return createHostIntegrations({
    config,
    secret: (userId, name) => secrets[userId]?.[name],
    dial: { hosts: { [CALDAV_HOST]: "127.0.0.1" }, extraCa: [radicale.certPem] },
    audit: (entry) => audits.push(entry),
    logger: createLogger("caldav-test", { level: "silent" }),
  });
}

function frame(action: string, args: Record<string, unknown>, user = "alice"): IntegrationRequest {
  return integrationRequestSchema.parse({
    type: "IntegrationRequest",
    user_id: user,
    session_id: "s1",
    msg_id: msg++,
    timestamp: new Date().toISOString(),
    integration: "calendar",
    action,
    args,
  });
}

async function call<A extends keyof CalendarResults>(action: A, args: Record<string, unknown>, d = desk) {
  const reply = await d.serve("alice", frame(action, args), AbortSignal.timeout(20_000));
  return reply as { ok: boolean; data?: CalendarResults[A]; error?: { code: string; message: string } };
}

describe.skipIf(radicaleMissing !== undefined)("the calendar over CalDAV, against a real Radicale", () => {
  beforeAll(async () => {
    radicale = await startRadicale(users);
    await radicale.makeCalendar("alice", PASSWORD, "personal", "Personal");
    await radicale.makeCalendar("alice", PASSWORD, "work", "Work");
    desk = deskFor(radicale.url, true);
  }, 60_000);
  afterAll(async () => {
    await radicale?.stop();
  });

  let dentist = "";

  it("is offered to a user with the CALDAV_PASSWORD secret only", () => {
    expect(desk.configured("alice")).toContain("calendar");
    expect(desk.configured("bob")).not.toContain("calendar");
  });

  it("creates an event in its time zone and says what it wrote", async () => {
    const reply = await call("create_event", {
      summary: "Dentist",
      start: "2026-12-01T09:30",
      end: "2026-12-01T10:15",
      time_zone: "Europe/Paris",
      location: "12 rue de la Paix",
      calendar: "Personal",
    });
    expect(reply.error).toBeUndefined();
    const event = reply.data?.event;
    expect(event).toMatchObject({
      summary: "Dentist",
      start: "2026-12-01T09:30:00+01:00",
      end: "2026-12-01T10:15:00+01:00",
      time_zone: "Europe/Paris",
      calendar: "Personal",
      location: "12 rue de la Paix",
    });
    dentist = event?.uid ?? "";
    // Stored with its zone: another client reads 09:30 Paris time.
    expect(await radicale.storedText()).toMatch(/DTSTART;TZID=Europe\/Paris:20261201T093000/);
  });

  it("lists the events of a range in every calendar, with each one's wall time", async () => {
    await call("create_event", {
      summary: "Standup call",
      start: "2026-12-01T08:00:00-05:00",
      end: "2026-12-01T08:15:00-05:00",
      time_zone: "America/New_York",
      calendar: "work",
    });
    const reply = await call("list_events", {
      from: "2026-12-01T00:00:00+01:00",
      to: "2026-12-02T00:00:00+01:00",
    });
    expect(reply.data?.calendars.sort()).toEqual(["Personal", "Work"]);
    expect(reply.data?.events.map((e) => [e.summary, e.start, e.calendar])).toEqual([
      ["Dentist", "2026-12-01T09:30:00+01:00", "Personal"],
      ["Standup call", "2026-12-01T08:00:00-05:00", "Work"],
    ]);
    const before = await call("list_events", { from: "2026-11-30T00:00:00Z", to: "2026-12-01T08:00:00Z" });
    expect(before.data?.events).toEqual([]);
  });

  it("lists a weekly recurring event on each of its occurrences in the range, across a change of offset", async () => {
    const created = await call("create_event", {
      summary: "Choir",
      start: "2027-03-16T19:00",
      end: "2027-03-16T21:00",
      time_zone: "Europe/Paris",
      recurrence: "FREQ=WEEKLY;BYDAY=TU;COUNT=6",
      calendar: "Personal",
    });
    expect(created.data?.event.recurrence).toBe("every week on Tuesday, 6 times");
    const reply = await call("list_events", {
      from: "2027-03-20T00:00:00+01:00",
      to: "2027-05-01T00:00:00+02:00",
      calendar: "Personal",
    });
    // Paris moves to summer time on 28 March: the choir still starts at 19:00 on the clock. The 16th is before
    // the range, and COUNT=6 ends the series on 20 April.
    expect(reply.data?.events.map((e) => e.start)).toEqual([
      "2027-03-23T19:00:00+01:00",
      "2027-03-30T19:00:00+02:00",
      "2027-04-06T19:00:00+02:00",
      "2027-04-13T19:00:00+02:00",
      "2027-04-20T19:00:00+02:00",
    ]);
    expect(new Set(reply.data?.events.map((e) => e.uid)).size).toBe(1);
  });

  it("moves an event, keeping its length, and says where it was", async () => {
    const reply = await call("move_event", { uid: dentist, start: "2026-12-03T14:00" });
    expect(reply.error).toBeUndefined();
    expect(reply.data).toMatchObject({
      previous_start: "2026-12-01T09:30:00+01:00",
      previous_end: "2026-12-01T10:15:00+01:00",
      event: {
        start: "2026-12-03T14:00:00+01:00",
        end: "2026-12-03T14:45:00+01:00",
        location: "12 rue de la Paix",
      },
    });
    const listed = await call("list_events", {
      from: "2026-12-01T00:00:00Z",
      to: "2026-12-05T00:00:00Z",
      calendar: "personal",
    });
    expect(listed.data?.events.map((e) => [e.summary, e.start])).toEqual([
      ["Dentist", "2026-12-03T14:00:00+01:00"],
    ]);
  });

  it("deletes an event, and a missing uid is a clear not_found for delete and move", async () => {
    const reply = await call("delete_event", { uid: dentist });
    expect(reply.data).toEqual({ uid: dentist, calendar: "Personal", summary: "Dentist" });
    for (const action of ["delete_event", "move_event"] as const) {
      const again = await call(action, {
        uid: dentist,
        ...(action === "move_event" ? { start: "2026-12-04T10:00" } : {}),
      });
      expect(again.error?.code).toBe("not_found");
      expect(again.error?.message).toContain(`no event with uid ${dentist}`);
    }
  });

  it("names the calendars there are when asked for one that is not", async () => {
    const reply = await call("list_events", {
      from: "2026-12-01T00:00:00Z",
      to: "2026-12-02T00:00:00Z",
      calendar: "Holidays",
    });
    expect(reply.error).toEqual({
      code: "not_found",
      message: "no calendar named Holidays; the account has: Personal, Work",
    });
  });

  it("says the server refused the password when it is wrong, without showing it", async () => {
    secrets.alice = { CALDAV_PASSWORD: "wrong-password-77" };
    try {
      const reply = await call("list_events", { from: "2026-12-01T00:00:00Z", to: "2026-12-02T00:00:00Z" });
      expect(reply.error?.code).toBe("forbidden");
      expect(reply.error?.message).toContain("did not accept user alice with the CALDAV_PASSWORD secret");
      expect(JSON.stringify(reply)).not.toContain("wrong-password-77");
    } finally {
      secrets.alice = { CALDAV_PASSWORD: PASSWORD };
    }
  });

  it("refuses to dial a private address unless the host allows it", async () => {
    const reply = await call(
      "list_events",
      { from: "2026-12-01T00:00:00Z", to: "2026-12-02T00:00:00Z" },
      deskFor(radicale.url, false),
    );
    expect(reply.error?.code).toBe("refused");
    expect(reply.error?.message).toContain("127.0.0.1");
  });

  it("never follows the server to another host, where the password would go along", async () => {
    const asked: string[] = [];
    // A server under the calendar's name that sends discovery elsewhere, as a hijacked or misconfigured one could.
    const rogue = createServer({ cert: radicale.certPem, key: radicale.keyPem }, (req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(301, { location: "https://elsewhere.example.test/dav/" }).end();
    });
    await new Promise<void>((resolve) => rogue.listen(0, "127.0.0.1", resolve));
    try {
      const port = (rogue.address() as AddressInfo).port;
      const reply = await call(
        "list_events",
        { from: "2026-12-01T00:00:00Z", to: "2026-12-02T00:00:00Z" },
        deskFor(`https://${CALDAV_HOST}:${port}/`, true),
      );
      expect(asked[0]).toBe("PROPFIND /.well-known/caldav");
      expect(reply.error).toEqual({
        code: "refused",
        message: `the calendar server pointed to https://elsewhere.example.test; only https://${CALDAV_HOST}:${port} is used`,
      });
    } finally {
      rogue.close();
    }
  });

  it("audits each call with its action, calendar and uid, and never the password", () => {
    const calendarAudits = audits.filter((a) => a.action === "integration.calendar");
    expect(calendarAudits.map((a) => a.detail.action)).toContain("delete_event");
    expect(calendarAudits.find((a) => a.detail.action === "delete_event")?.detail).toMatchObject({
      calendar: "Personal",
      uid: dentist,
      outcome: "ok",
    });
    // The positive control: the password is a string a search would find if any audit held it.
    expect(JSON.stringify({ PASSWORD })).toContain(PASSWORD);
    expect(JSON.stringify(audits)).not.toContain(PASSWORD);
    expect(JSON.stringify(audits)).not.toContain(Buffer.from(`alice:${PASSWORD}`).toString("base64"));
  });
});
