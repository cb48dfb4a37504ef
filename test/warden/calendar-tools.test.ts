import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/model-server.js";
import { CALDAV_HOST, type Radicale, radicaleMissing, startRadicale } from "../support/radicale.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// The calendar from a user's own agent in a real cell (bwrap, no network): the scripted model calls
// calendar_create_event, then calendar_list_events; the inmate asks the warden over the channel; the warden logs in
// to a real Radicale over HTTPS with the user's CALDAV_PASSWORD secret and answers. The password stays in the
// warden: nothing the cell sent to the model holds it.

const PASSWORD = "caldav-pw-e2e-91f0c3";

let h: WardenHarness;
let radicale: Radicale;
let alice: ReturnType<typeof api>;

/** The tool results the model was given, as the last model call carries them. */
function toolMessages(): string[] {
  const messages = h.model.chatRequests().at(-1)?.messages ?? [];
  return messages.filter((m) => m.role === "tool").map((m) => String(m.content ?? ""));
}

describe.skipIf(radicaleMissing !== undefined)(
  "the calendar tools from a user's own agent in a real cell",
  () => {
    beforeAll(async () => {
      radicale = await startRadicale({ alice: PASSWORD });
      await radicale.makeCalendar("alice", PASSWORD, "home", "Home");
      h = await startWardenHarness({
        egressDial: { hosts: { [CALDAV_HOST]: "127.0.0.1" }, extraCa: [radicale.certPem] },
        configure: (config) => ({
          ...config,
          integrations: {
            ...config.integrations,
            calendar: { ...config.integrations.calendar, url: radicale.url },
          },
          egress: { ...config.egress, allow_private: true },
        }),
      });
      alice = api(h.url, await h.addUser("alice"));
      h.warden.context.secrets.store.set("alice", "CALDAV_PASSWORD", PASSWORD, "alice");
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await radicale?.stop();
    });

    it("creates an event and lists it back, the warden holding the password", async () => {
      h.model.enqueue(
        reply.toolCalls([
          {
            name: "calendar_create_event",
            arguments: {
              summary: "Piano lesson",
              start: "2026-12-05T16:00",
              end: "2026-12-05T17:00",
              time_zone: "Europe/Paris",
              recurrence: "FREQ=WEEKLY;COUNT=3",
            },
          },
        ]),
        reply.toolCalls([
          {
            name: "calendar_list_events",
            arguments: { from: "2026-12-01T00:00:00+01:00", to: "2026-12-31T00:00:00+01:00" },
          },
        ]),
        reply.text("Your piano lesson is in the calendar for the next three Saturdays."),
      );
      const response = await alice("POST", "/api/chat", {
        text: "add my piano lesson, Saturdays 4pm, 3 times",
      });
      expect(response.status).toBe(200);
      const answer = ((await response.json()) as { data: { text: string } }).data;
      expect(answer.text).toBe("Your piano lesson is in the calendar for the next three Saturdays.");

      const offered = (h.model.chatRequests()[0]?.tools ?? []) as Array<{ function?: { name?: string } }>;
      expect(offered.map((t) => t.function?.name)).toEqual(
        expect.arrayContaining(["calendar_create_event", "calendar_list_events", "calendar_move_event"]),
      );
      const [created, listed] = toolMessages();
      expect(created).toMatch(/^Created in Home: - 2026-12-05T16:00:00\+01:00 – 2026-12-05T17:00:00\+01:00/);
      expect(listed).toContain("3 events from 2026-12-01T00:00:00+01:00");
      for (const day of ["2026-12-05", "2026-12-12", "2026-12-19"])
        expect(listed).toContain(
          `${day}T16:00:00+01:00 – ${day}T17:00:00+01:00 (Europe/Paris): Piano lesson`,
        );
      expect(await radicale.storedText()).toContain("SUMMARY:Piano lesson");

      // Everything the cell sent out went to the model server; the password is in none of it.
      const sent = JSON.stringify(h.model.chatRequests());
      expect(sent).toContain("Piano lesson");
      expect(sent).not.toContain(PASSWORD);
      const audit = h.warden.context.audit.list({ userId: "alice", action: "integration.calendar" });
      expect(audit.map((e) => e.detail.action)).toEqual(
        expect.arrayContaining(["create_event", "list_events"]),
      );
      expect(JSON.stringify(audit)).not.toContain(PASSWORD);
    });
  },
);
