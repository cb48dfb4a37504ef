import {
  CALENDAR_ACTIONS,
  type CalendarAction,
  type CalendarEvent,
  type CalendarResults,
  calendarArgsSchemas,
  calendarResultSchemas,
} from "../../contracts/index.js";
import type { IntegrationAccess } from "./integration-client.js";
import { type AgentTool, defineTool, failed, ok, type ToolResult } from "./tool-definition.js";

// The user's calendar as typed tools: the call goes to the warden, which logs in to the CalDAV server with the
// user's password (the model and the cell never see it) and answers with each event's wall time in its own
// zone. Writes say what they did, so the model can tell the person exactly what changed.

const DESCRIPTIONS: Record<CalendarAction, string> = {
  list_events:
    "List the user's calendar events between two instants (ISO 8601 with offsets, at most a year apart), every " +
    "calendar unless one is named. A recurring event is listed once per occurrence; times are in each event's " +
    "own time zone.",
  create_event:
    "Add an event to the user's calendar: summary, start and end as wall times in time_zone (IANA, like " +
    "Europe/Paris), optional location, description and an RRULE recurrence. Only when the user asked for it.",
  move_event:
    "Move an event (a recurring one's whole series) to a new start, keeping its length unless end is given. " +
    "Find the uid with calendar_list_events. Only when the user asked for it.",
  delete_event:
    "Delete an event (a recurring one's whole series) by uid, found with calendar_list_events. Only when the " +
    "user asked for it.",
};

/** The calendar tools, granted together by the allow-list entry `calendar`. */
export function createCalendarTools(access: IntegrationAccess): AgentTool[] {
  return CALENDAR_ACTIONS.map((action) => calendarTool(access, action));
}

function calendarTool<A extends CalendarAction>(access: IntegrationAccess, action: A): AgentTool {
  return defineTool({
    name: `calendar_${action}`,
    kind: "calendar",
    description: DESCRIPTIONS[action],
    parameters: calendarArgsSchemas[action],
    async execute(args, { signal }) {
      const answer = await access.call(
        { integration: "calendar", action, args: args as Record<string, unknown> },
        { signal },
      );
      if (!answer.ok)
        return failed(`calendar ${action} failed (${answer.error.code}): ${answer.error.message}`, {
          code: answer.error.code,
        });
      const data = calendarResultSchemas[action].safeParse(answer.data);
      if (!data.success) return failed(`calendar ${action} failed: the warden's answer was not understood`);
      return describe(action, data.data as CalendarResults[A]);
    },
  }) as AgentTool;
}

function describe<A extends CalendarAction>(action: A, data: CalendarResults[A]): ToolResult {
  switch (action) {
    case "list_events": {
      const list = data as CalendarResults["list_events"];
      const lines = [
        `${list.events.length} event${list.events.length === 1 ? "" : "s"} from ${list.from} to ${list.to} ` +
          `(calendars: ${list.calendars.join(", ") || "none"}):`,
        ...list.events.map((e) => eventLine(e)),
      ];
      if (list.truncated) lines.push("More events in this range: ask for a shorter range to see them all.");
      if (list.unreadable)
        lines.push(`${list.unreadable} calendar entries in this range could not be read and are not shown.`);
      return ok(lines.join("\n"), { count: list.events.length, truncated: list.truncated });
    }
    case "create_event": {
      const { event } = data as CalendarResults["create_event"];
      return ok(`Created in ${event.calendar}: ${eventLine(event)}`, { uid: event.uid });
    }
    case "move_event": {
      const moved = data as CalendarResults["move_event"];
      return ok(
        `Moved "${moved.event.summary}" from ${moved.previous_start}–${moved.previous_end} to ` +
          `${moved.event.start}–${moved.event.end} (${moved.event.time_zone}) in ${moved.event.calendar}, uid ${moved.event.uid}.`,
        { uid: moved.event.uid },
      );
    }
    case "delete_event": {
      const gone = data as CalendarResults["delete_event"];
      return ok(`Deleted "${gone.summary}" (uid ${gone.uid}) from ${gone.calendar}.`, { uid: gone.uid });
    }
    default:
      return failed(`calendar ${action} has no description`);
  }
}

function eventLine(e: CalendarEvent): string {
  const when = e.all_day ? `${e.start} (all day, until ${e.end})` : `${e.start} – ${e.end} (${e.time_zone})`;
  const extra = [
    e.recurrence ? `repeats ${e.recurrence}` : "",
    e.location ? `at ${e.location}` : "",
    `calendar ${e.calendar}`,
    `uid ${e.uid}`,
  ].filter((x) => x !== "");
  const description = e.description ? `\n  ${e.description.replace(/\s+/g, " ")}` : "";
  return `- ${when}: ${e.summary} [${extra.join("; ")}]${description}`;
}
