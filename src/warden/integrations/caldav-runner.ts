import { createAccount, type DAVCalendar, fetchCalendars } from "tsdav";
import { CALENDAR_ACTIONS, type CalendarAction, type CalendarArgs } from "../../contracts/index.js";
import { EgressRefusal } from "../../egress/index.js";
import { type CaldavSession, CalendarError, caldavActions } from "./calendar/caldav-actions.js";
import { EventInputError } from "./calendar/event-writer.js";
import type { IntegrationOutcome, IntegrationRunner } from "./integration-runner.js";

/** The user secret the calendar tools log in to the CalDAV server with. */
export const CALDAV_PASSWORD_SECRET = "CALDAV_PASSWORD";

export interface CaldavRunnerOptions {
  /** `[integrations.calendar] url`; undefined: no user has calendar tools. */
  url: string | undefined;
  /** `[integrations.calendar] username`, `{user}` standing for the IronClaw user's id. */
  username: string;
  /** The user's CALDAV_PASSWORD secret, or undefined when they have none. */
  password: (userId: string) => string | undefined;
  /** How the requests leave the warden: the egress module's guarded fetch. */
  fetch: typeof fetch;
  now?: () => number;
}

/**
 * The calendar over CalDAV with tsdav, logged in as the user with their own password, which only this runner
 * reads: it goes into the Authorization header of each request and nowhere else (not the answer, not the audit).
 */
export function createCaldavRunner(options: CaldavRunnerOptions): IntegrationRunner {
  const now = options.now ?? Date.now;
  return {
    name: "calendar",
    configured: (userId) => options.url !== undefined && Boolean(options.password(userId)),
    async run(userId, action, args, signal) {
      const password = options.password(userId);
      if (options.url === undefined || !password)
        return {
          ok: false,
          error: {
            code: "not_configured",
            message:
              options.url === undefined
                ? "no calendar server is set up on this host ([integrations.calendar] url)"
                : `the calendar is not set up for you: add your CalDAV password as the secret ${CALDAV_PASSWORD_SECRET}`,
          },
          audit: {},
        };
      if (!isCalendarAction(action))
        return { ok: false, error: { code: "invalid", message: `unknown action ${action}` }, audit: {} };
      const username = options.username.replaceAll("{user}", userId);
      const login = loggedIn(options.fetch, username, password, signal);
      try {
        const session: CaldavSession = {
          calendars: await eventCalendars(options.url, login.fetch),
          fetch: login.fetch,
          now,
        };
        const done = await perform(session, action, args);
        return { ok: true, data: done.data as Record<string, unknown>, audit: done.audit };
      } catch (error) {
        return failure(error, login.unauthorized(), username, password);
      }
    },
  };
}

/** One action with arguments the frame's inbound check has already held against the action's schema. */
function perform(session: CaldavSession, action: CalendarAction, args: Record<string, unknown>) {
  const act = caldavActions[action] as (
    s: CaldavSession,
    a: CalendarArgs[CalendarAction],
  ) => Promise<{ data: object; audit: Record<string, string> }>;
  return act(session, args as CalendarArgs[CalendarAction]);
}

function isCalendarAction(action: string): action is CalendarAction {
  return (CALENDAR_ACTIONS as readonly string[]).includes(action);
}

/** The fetch with the user's login on every request, noting whether the server refused it. */
function loggedIn(fetchImpl: typeof fetch, username: string, password: string, signal: AbortSignal) {
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
  let refused = false;
  const withLogin = async (input: string | URL | Request, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("authorization", authorization);
    const response = await fetchImpl(input, { ...init, headers, signal });
    if (response.status === 401) refused = true;
    return response;
  };
  return { fetch: withLogin as typeof fetch, unauthorized: () => refused };
}

/** The account's calendars that hold events (a CalDAV home may also hold task lists and journals). */
async function eventCalendars(serverUrl: string, fetchImpl: typeof fetch): Promise<DAVCalendar[]> {
  const account = await createAccount({
    account: { serverUrl, accountType: "caldav" },
    fetch: fetchImpl,
  });
  const calendars = await fetchCalendars({ account, fetch: fetchImpl });
  return calendars.filter((c) => !c.components || c.components.includes("VEVENT"));
}

function failure(
  error: unknown,
  unauthorized: boolean,
  username: string,
  password: string,
): IntegrationOutcome {
  // A client library's message may quote a response; the password never belongs in an answer.
  const clean = (text: string) => text.replaceAll(password, "[secret]").slice(0, 1800);
  if (error instanceof CalendarError)
    return { ok: false, error: { code: error.code, message: clean(error.message) }, audit: error.audit };
  if (error instanceof EventInputError)
    return { ok: false, error: { code: "invalid", message: clean(error.message) }, audit: {} };
  const cause = (error as { cause?: unknown }).cause;
  if (error instanceof EgressRefusal || cause instanceof EgressRefusal)
    return {
      ok: false,
      error: {
        code: "refused",
        message: clean((error instanceof EgressRefusal ? error : (cause as Error)).message),
      },
      audit: {},
    };
  if (unauthorized)
    return {
      ok: false,
      error: {
        code: "forbidden",
        message: `the calendar server did not accept user ${username} with the ${CALDAV_PASSWORD_SECRET} secret (wrong or changed password?)`,
      },
      audit: { status: "401" },
    };
  return {
    ok: false,
    error: {
      code: "upstream",
      message: clean(`the calendar server could not be used: ${(error as Error).message}`),
    },
    audit: {},
  };
}
