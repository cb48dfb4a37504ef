// Recency of a brain file, from its path alone: the index holds no trustworthy time for a note (mtimes change on
// every copy, restore and git checkout), while the seed's layout puts the date in the name (seed 003 §5.1).

const DAY_MS = 86_400_000;
const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})/;
/** Top-level folders whose files are dated by a path segment: the daily stream and session transcripts. */
const DATED_ROOTS = new Set(["logs", "sessions"]);
/** Seed 003 §5.1's durable tiers: true until edited, however long ago they were written. */
const EVERGREEN_FILES = new Set(["soul.md", "identity.md", "memory.md"]);

export type SourceAge =
  | { kind: "dated"; date: string }
  | { kind: "evergreen" }
  /** Any other note: topic files, people, projects. Undated, so recency says nothing about it. */
  | { kind: "undated" };

/**
 * `logs/2025-03-02.md`, `logs/2025-03-02-evening.md`, `sessions/2025-03-02/<id>.md`: the first segment under
 * logs/ or sessions/ that starts with a real calendar date dates the file.
 */
export function sourceAge(path: string): SourceAge {
  const segments = path.split("/");
  if (segments.length === 1 && EVERGREEN_FILES.has(path)) return { kind: "evergreen" };
  if (segments[0] === "instructions") return { kind: "evergreen" };
  if (!DATED_ROOTS.has(segments[0] ?? "")) return { kind: "undated" };
  for (const segment of segments.slice(1)) {
    const date = calendarDate(segment);
    if (date) return { kind: "dated", date };
  }
  return { kind: "undated" };
}

function calendarDate(segment: string): string | undefined {
  const m = DATE_PREFIX.exec(segment);
  if (!m) return undefined;
  const iso = `${m[1]}-${m[2]}-${m[3]}`;
  // Date.parse accepts 2025-02-30 as March 2nd on some engines; a round trip refuses it everywhere.
  const ms = Date.parse(`${iso}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== iso ? undefined : iso;
}

/** Whole days from the source's date to `now` (UTC days); a date after `now` is age 0. */
export function ageInDays(date: string, now: Date): number {
  const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  return Math.max(0, Math.round((today - Date.parse(`${date}T00:00:00Z`)) / DAY_MS));
}

/**
 * The multiplier of a dated source's score: 1 today, halfway to `floor` after `halfLifeDays`, never below
 * `floor`. A plain exponential (floor 0) makes a year-old note unfindable next to any undated one; with a
 * floor, age only decides between notes that match about equally well — the newer state of the same thing.
 */
export function recencyFactor(ageDays: number, halfLifeDays: number, floor: number): number {
  return floor + (1 - floor) * 0.5 ** (ageDays / halfLifeDays);
}

/** True when the source is dated after `asOf`'s day: it did not exist yet when the question is asked. */
export function isAfter(age: SourceAge, asOf: Date): boolean {
  return age.kind === "dated" && age.date > asOf.toISOString().slice(0, 10);
}
