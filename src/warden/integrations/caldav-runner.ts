import { createAccount, type DAVCalendar, fetchCalendars } from "tsdav";
import { CALENDAR_ACTIONS, type CalendarAction, type CalendarArgs } from "../../contracts/index.js";
import { EgressRefusal } from "../../egress/index.js";
import { type CaldavSession, CalendarError, caldavActions } from "./calendar/caldav-actions.js";
import { EventInputError } from "./calendar/event-writer.js";
import type { IntegrationOutcome, IntegrationRunner } from "./integration-runner.js";

/** The user secret the calendar tools log in to the CalDAV server with. */
export const CALDAV_PASSWORD_SECRET = "CALDAV_PASSWORD";

/** How long a user's discovered calendars are reused before the account is asked again. */
const CALENDARS_FRESH_MS = 60_000;

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
  // Discovery costs five requests or more (well-known, principal, home, the calendars and their reports); an
  // agent's calls come in bursts (create, then list), so each user's calendars are reused for a minute.
  const known = new Map<string, { at: number; calendars: DAVCalendar[] }>();
  const calendarsOf = async (userId: string, url: string, fetchImpl: typeof fetch) => {
    const cached = known.get(userId);
    if (cached && now() - cached.at < CALENDARS_FRESH_MS) return cached.calendars;
    const calendars = await eventCalendars(url, fetchImpl);
    known.set(userId, { at: now(), calendars });
    return calendars;
  };
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
      const login = loggedIn(options.fetch, new URL(options.url).origin, username, password, signal);
      try {
        const session: CaldavSession = {
          calendars: await calendarsOf(userId, options.url, login.fetch),
          fetch: login.fetch,
          now,
        };
        const done = await perform(session, action, args);
        return { ok: true, data: done.data as Record<string, unknown>, audit: done.audit };
      } catch (error) {
        // A calendar added or removed meanwhile, or a changed password: the next call discovers afresh.
        known.delete(userId);
        return failure(login.stray() ?? error, login.unauthorized(), username, password);
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

/**
 * The fetch with the user's login on every request, noting whether the server refused it. Only the configured
 * server's origin is dialled: a server answering with an href or a redirect to another host would otherwise
 * receive the password with it.
 */
function loggedIn(
  fetchImpl: typeof fetch,
  origin: string,
  username: string,
  password: string,
  signal: AbortSignal,
) {
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
  let refused = false;
  let stray: CalendarError | undefined;
  const withLogin = async (input: string | URL | Request, init: RequestInit = {}) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (target.origin !== origin) {
      // Kept as well as thrown: tsdav's discovery catches errors and tries further URLs.
      stray = new CalendarError(
        "refused",
        `the calendar server pointed to ${target.origin}; only ${origin} is used`,
      );
      throw stray;
    }
    const headers = new Headers(init.headers);
    headers.set("authorization", authorization);
    const response = await fetchImpl(input, { ...init, headers, signal });
    if (response.status === 401) {
      // Thrown, not returned: a refused REPORT must never read as an empty calendar.
      refused = true;
      throw new Error("the calendar server refused the login");
    }
    return response;
  };
  return { fetch: withLogin as typeof fetch, unauthorized: () => refused, stray: () => stray };
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
