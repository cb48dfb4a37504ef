import { aString } from "../common.js";

/** The nicknames croner understands in place of five fields. */
const NICKNAMES = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

// Per field, the characters croner accepts: names (JAN, MON) only in month and weekday, L/W/? in day of
// month, L/#/? in weekday. Ranges and values are left to croner, which parses the expression when it runs.
const FIELDS = [
  { name: "seconds", chars: /^[0-9*,/-]+$/ },
  { name: "minutes", chars: /^[0-9*,/-]+$/ },
  { name: "hours", chars: /^[0-9*,/-]+$/ },
  { name: "day of month", chars: /^[0-9*,/?LW-]+$/ },
  { name: "month", chars: /^[0-9A-Za-z*,/-]+$/ },
  { name: "day of week", chars: /^[0-9A-Za-z*,/?L#-]+$/ },
] as const;

/**
 * Checks the shape of a cron expression: five fields (minute hour day month weekday), six with leading
 * seconds, or a nickname such as `@daily`. Returns the problem, or undefined when the shape is right.
 */
export function checkCronExpression(expression: string): string | undefined {
  const trimmed = expression.trim();
  if (NICKNAMES.has(trimmed.toLowerCase())) return undefined;
  if (trimmed.startsWith("@")) return `uses an unknown nickname; known are ${[...NICKNAMES].join(", ")}`;
  const parts = trimmed === "" ? [] : trimmed.split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    return `must have 5 fields (minute hour day month weekday) or 6 with seconds first, not ${parts.length}`;
  }
  const fields = parts.length === 6 ? FIELDS : FIELDS.slice(1);
  for (const [i, part] of parts.entries()) {
    const field = fields[i];
    if (field && !field.chars.test(part)) return `has an invalid ${field.name} field "${part}"`;
  }
  return undefined;
}

export const cronExpression = aString().superRefine((expression, ctx) => {
  const problem = checkCronExpression(expression);
  if (problem) ctx.addIssue({ code: "custom", message: problem, input: expression });
});

/** True when the runtime's time zone database knows the IANA name (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  // Newer ICU (Node 24) also accepts UTC offsets like "+02:00"; an offset is not a zone (it has no daylight
  // saving rules), so it is refused on every runtime alike.
  if (/^[+-]\d/.test(name)) return false;
  try {
    Intl.DateTimeFormat(undefined, { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const ianaTimeZone = aString()
  .min(1, "must not be empty")
  .refine(isTimeZone, "must be an IANA time zone name known to this runtime (like Europe/Berlin or UTC)");
