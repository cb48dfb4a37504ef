import { Cron } from "croner";
import { checkCronFields } from "./cron-fields.js";

/** The next runs, or what is wrong: `errors` names every problem found, `error` says them in one line. */
export type SchedulePreview = { ok: true; next: Date[] } | { ok: false; error: string; errors: string[] };

const refuse = (...errors: string[]): SchedulePreview => ({ ok: false, error: errors.join("; "), errors });

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a schedule as the cell's scheduler will run it (croner, in the job's time zone) and lists its next
 * runs, for the editor to show as the user types. The warden checks again before it writes jobs.toml.
 */
export function previewSchedule(
  expression: string,
  timeZone: string,
  count = 5,
  from = new Date(),
): SchedulePreview {
  const trimmed = expression.trim();
  if (trimmed === "") return refuse("Enter a schedule, like 0 7 * * * (every day at 07:00).");
  const fields = checkCronFields(trimmed);
  const zone = isTimeZone(timeZone)
    ? []
    : [`${timeZone || "(empty)"} is not a time zone this browser knows (like Europe/Berlin or UTC).`];
  if (fields.length > 0 || zone.length > 0) return refuse(...fields, ...zone);
  try {
    const cron = new Cron(trimmed, { timezone: timeZone, paused: true });
    const next = cron.nextRuns(count, from);
    if (next.length === 0) return refuse("This schedule never runs (no such date).");
    return { ok: true, next };
  } catch (error) {
    return refuse((error as Error).message.replace(/^CronPattern: /, ""));
  }
}

/** Every IANA time zone the browser knows, for the picker; UTC first. */
export function timeZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  const zones = intl.supportedValuesOf?.("timeZone") ?? [];
  return ["UTC", ...zones.filter((z) => z !== "UTC")];
}
