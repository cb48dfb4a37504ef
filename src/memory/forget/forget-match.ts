import { sha256Hex } from "../../core/index.js";

// What "forget" removes from one markdown file, worked out on its lines without touching the disk. A file is cut
// into units — a heading line, a paragraph, a list item, a fenced block — and a unit is removed whole, so a
// sentence is never left half-said. A heading whose section was emptied by the removal goes with it.

/** Decides whether a unit of text is to be forgotten. */
export type ForgetMatcher = (unit: string) => boolean;

/** One contiguous run of removed lines, described without its text. */
export interface RemovedRegion {
  /** 1-based, inclusive, in the file before the removal. */
  startLine: number;
  endLine: number;
  /** The heading trail where the region starts (its own heading included when it starts with one). */
  headings: string[];
  /** sha256 of the removed text: proof of what was removed, without keeping it. */
  hash: string;
}

export interface FileRemoval {
  text: string;
  regions: RemovedRegion[];
  /** The removed units' text, for scrubbing copies held elsewhere (never stored). */
  removed: string[];
}

interface Unit {
  start: number;
  end: number;
  heading?: { depth: number; text: string };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$/;
const LIST_ITEM = /^\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;
const WORD = /[\p{L}\p{N}]+/gu;

/** The words of a text, lower-cased, as forgetting compares them. */
export function wordsOf(text: string): string[] {
  return Array.from(text.normalize("NFKC").toLowerCase().matchAll(WORD), (m) => m[0]);
}

/** A unit matches a query when it contains every word of it (case-insensitive, whole words). */
export function queryMatcher(query: string): ForgetMatcher {
  const wanted = [...new Set(wordsOf(query))];
  return (unit) => {
    if (wanted.length === 0) return false;
    const words = new Set(wordsOf(unit));
    return wanted.every((w) => words.has(w));
  };
}

/** A unit matches when it contains one of `texts` (compared word by word, so spacing and case do not matter). */
export function containsMatcher(texts: readonly string[]): ForgetMatcher {
  const needles = texts.map((t) => ` ${wordsOf(t).join(" ")} `).filter((n) => n.trim() !== "");
  return (unit) => {
    const hay = ` ${wordsOf(unit).join(" ")} `;
    return needles.some((n) => hay.includes(n));
  };
}

/** Cuts lines into units: headings, paragraphs, list items and fenced blocks (blank lines belong to none). */
export function unitsOf(lines: readonly string[]): Unit[] {
  const units: Unit[] = [];
  let current: Unit | undefined;
  let fence: { char: string; length: number } | undefined;
  const close = () => {
    if (current) units.push(current);
    current = undefined;
  };
  lines.forEach((line, i) => {
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      (current as Unit).end = i;
      const marker = fenceMatch?.[1];
      if (marker?.[0] === fence.char && marker.length >= fence.length && fenceMatch?.[2]?.trim() === "") {
        fence = undefined;
        close();
      }
      return;
    }
    if (fenceMatch?.[1] && !(fenceMatch[1][0] === "`" && fenceMatch[2]?.includes("`"))) {
      close();
      fence = { char: fenceMatch[1][0] as string, length: fenceMatch[1].length };
      current = { start: i, end: i };
      return;
    }
    if (line.trim() === "") {
      close();
      return;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      close();
      const depth = (heading[1] as string).length;
      units.push({ start: i, end: i, heading: { depth, text: (heading[2] ?? "").trim() } });
      return;
    }
    if (LIST_ITEM.test(line) || !current) {
      close();
      current = { start: i, end: i };
    } else current.end = i;
  });
  close();
  return units;
}

/**
 * Removes from `text` every unit `matches` accepts, and lines `extra` (0-based, e.g. a chunk's lines), then any
 * heading left with nothing under it. A matching heading takes its whole section with it. Undefined when
 * nothing matches.
 */
export function removeMatching(
  text: string,
  matches: ForgetMatcher,
  extra: ReadonlySet<number> = new Set(),
): FileRemoval | undefined {
  const lines = text.split("\n");
  const units = unitsOf(lines);
  const gone = new Set<number>(extra);
  units.forEach((unit, u) => {
    const body = lines.slice(unit.start, unit.end + 1).join("\n");
    if (!matches(body)) return;
    let end = unit.end;
    if (unit.heading) {
      const depth = unit.heading.depth;
      const next = units.slice(u + 1).find((n) => n.heading && n.heading.depth <= depth);
      end = next ? next.start - 1 : lines.length - 1;
    }
    for (let i = unit.start; i <= end; i++) gone.add(i);
  });
  if (gone.size === 0) return undefined;
  dropEmptiedHeadings(lines, units, gone);
  bridgeBlankLines(lines, gone);
  return describeRemoval(lines, units, gone);
}

/** Blank lines between two removed lines go with them, so one cut-out section is one region. */
function bridgeBlankLines(lines: readonly string[], gone: Set<number>): void {
  let lastGone = false;
  let blanks: number[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "" && !gone.has(i)) {
      blanks.push(i);
      return;
    }
    if (gone.has(i) && lastGone) for (const b of blanks) gone.add(b);
    lastGone = gone.has(i);
    blanks = [];
  });
}

/**
 * A heading whose section (subsections included) had content and has none left goes too. Bottom-up, so a
 * subsection emptied this way counts as removed content of its parent.
 */
function dropEmptiedHeadings(lines: readonly string[], units: readonly Unit[], gone: Set<number>): void {
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u] as Unit;
    if (!unit.heading || gone.has(unit.start)) continue;
    const depth = unit.heading.depth;
    const end = units.slice(u + 1).find((n) => n.heading && n.heading.depth <= depth)?.start ?? lines.length;
    let had = false;
    let left = false;
    for (let i = unit.start + 1; i < end; i++) {
      if ((lines[i] as string).trim() === "") continue;
      if (gone.has(i)) had = true;
      else left = true;
    }
    if (had && !left) gone.add(unit.start);
  }
}

function describeRemoval(lines: readonly string[], units: readonly Unit[], gone: Set<number>): FileRemoval {
  const trailAt = headingTrails(lines.length, units);
  const regions: RemovedRegion[] = [];
  const removed: string[] = [];
  const kept: string[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!gone.has(i)) {
      const line = lines[i] as string;
      // One blank line where text was cut out, never a growing gap.
      if (!(line.trim() === "" && kept.length > 0 && (kept.at(-1) as string).trim() === "")) kept.push(line);
      i++;
      continue;
    }
    const start = i;
    while (i < lines.length && gone.has(i)) i++;
    const region = lines.slice(start, i).join("\n");
    regions.push({
      startLine: start + 1,
      endLine: i,
      headings: trailAt[start] ?? [],
      hash: `sha256:${sha256Hex(region)}`,
    });
    removed.push(region);
  }
  while (kept.length > 1 && (kept[0] as string).trim() === "") kept.shift();
  return { text: kept.join("\n"), regions, removed };
}

/** The heading trail in force at each line of a text (a heading's own line includes it). */
export function headingTrailsOf(lines: readonly string[]): string[][] {
  return headingTrails(lines.length, unitsOf(lines));
}

function headingTrails(count: number, units: readonly Unit[]): string[][] {
  const trails: string[][] = new Array(count);
  const trail: Array<{ depth: number; text: string }> = [];
  let u = 0;
  for (let i = 0; i < count; i++) {
    const unit = units[u];
    if (unit && unit.start === i) {
      if (unit.heading) {
        while (trail.length > 0 && (trail.at(-1)?.depth ?? 0) >= unit.heading.depth) trail.pop();
        trail.push(unit.heading);
      }
      u++;
    }
    trails[i] = trail.map((t) => t.text);
  }
  return trails;
}
