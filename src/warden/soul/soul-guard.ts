import type { IronclawdConfig } from "../../contracts/index.js";
import { ConfigError } from "../../core/index.js";

/**
 * Soul guard (seed 003 §11.3): decides whether a change to one of a user's prompt files (soul.md, identity.md,
 * instructions/*.md, a profile's persona files: everything that enters the system prompt) may stand or must be
 * held until a human approves it. Pure: no I/O, no clock; the warden feeds it the version a person last
 * approved (null: the file did not exist then) and the text there now (null: the file is gone).
 *
 * The rule. A change from `before` to `after` is held when any of these holds, and accepted otherwise:
 *
 * 1. Deleted, emptied or created: `after` is null (the file was deleted, or renamed away), or contains only
 *    whitespace; or `before` is null and `after` has text (a new file would enter the system prompt).
 * 2. Too large: the change ratio is above `max_change_ratio`. Both texts are split into lines and each line
 *    is normalised (trimmed, runs of whitespace read as one space); a line diff (longest common subsequence)
 *    of the normalised lines gives the removed and added lines. The ratio is the number of characters in the
 *    removed plus the added lines divided by max(size(before), size(after), 1), where size is the total
 *    length of a text's normalised lines. Whitespace-only changes (indentation, blank lines, line endings,
 *    trailing spaces) therefore count nothing, and padding the file with whitespace cannot dilute the ratio.
 *    Replacing every line gives about 2; appending a paragraph as long as the file gives 0.5. Because `before`
 *    is the approved version, not the previous one, small steps add up: ten small appends are held as soon as
 *    together they pass the limit.
 * 3. A safety line removed: a removed line contains a protected word (case-insensitive, whole words; a
 *    plural or past-tense ending -s, -es, -d, -ed still matches, so "secret" matches "Secrets" but not
 *    "secretary"; spaces inside a protected phrase match any whitespace). Editing such a line counts as
 *    removing it, because one changed word ("never" → "always", "reveals" → "hides") inverts a rule and no
 *    character count tells that from a typo fix. A line moved elsewhere unchanged is not a removal.
 * 4. Injected instructions: an added line, or the added lines of one diff hunk read together (so a phrase
 *    split over two lines is still seen), matches a suspicious pattern: `suspicious_patterns` when given,
 *    else DEFAULT_SUSPICIOUS_PATTERNS. Patterns are JavaScript regular expressions, case-insensitive.
 *
 * Protected words and patterns are matched after NFKC normalisation, with invisible format characters (such
 * as zero-width spaces) removed and typographic apostrophes read as "'", so look-alike spellings do not slip
 * past. With `enabled = false` every change is accepted with no reasons (the ratio is still reported).
 * Every reason is a sentence a person can act on; it quotes the text that fired it, never a regular expression.
 */

/** The `[soul_guard]` table of ironclawd.toml, after defaults. */
export type SoulGuardConfig = IronclawdConfig["soul_guard"];

export interface SoulDecision {
  /** The prompt file this decision is about, relative to the brain. */
  path: string;
  verdict: "accept" | "hold";
  /** One sentence per rule that fired; empty when accepted. */
  reasons: string[];
  changeRatio: number;
  /** The removed lines (trimmed) that carried a protected word. */
  removedProtected: string[];
  /** The added text each suspicious pattern matched (clipped). */
  addedSuspicious: string[];
}

/** One line of a unified diff: kept (" "), removed ("-") or added ("+"). Kept lines carry the new text. */
export interface DiffLine {
  op: " " | "-" | "+";
  text: string;
}

interface SuspiciousPattern {
  source: string;
  /** What the added text does, as the predicate of "The change …". */
  says: string;
}

/** Prompt-injection phrasing and encoded payloads, each with what it means; used when `suspicious_patterns` is absent. */
const DEFAULT_PATTERNS: readonly SuspiciousPattern[] = [
  {
    source: String.raw`\bignore\s+(?:(?:all|any|the|your|of|these|those)\s+){0,3}(?:previous|prior|above|earlier|preceding)\s+(?:instructions|rules|guidelines|directions|prompts?)\b`,
    says: "adds an instruction to ignore previous instructions",
  },
  {
    source: String.raw`\b(?:disregard|forget)\s+(?:(?:all|any|the|your|of|these|those)\s+){0,3}(?:(?:previous|prior|above|earlier|preceding|safety|system)\s+)?(?:instructions|rules|guidelines|boundaries|restrictions)\b`,
    says: "adds an instruction to disregard the agent's rules",
  },
  { source: String.raw`\byou\s+are\s+now\b`, says: "tells the agent it is now someone else" },
  { source: String.raw`\bnew\s+instructions\b`, says: "announces new instructions" },
  { source: String.raw`\bsystem\s+prompt\b`, says: "talks about the system prompt" },
  { source: String.raw`\bdeveloper\s+mode\b`, says: 'switches the agent into a "developer mode"' },
  { source: String.raw`\bjailbr(?:ea|o)k`, says: "asks for a jailbreak" },
  { source: "exfiltrat", says: "talks about exfiltrating data" },
  {
    source: String.raw`\b(?:send|post|upload|forward|e-?mail|leak)\b[^\n]{0,80}?\b(?:passwords?|tokens?|keys?|secrets?|credentials?)\s+to\b`,
    says: "adds an instruction to send passwords, tokens, keys or secrets somewhere",
  },
  { source: String.raw`\bdo\s+anything\s+now\b`, says: 'adds the "do anything now" jailbreak' },
  // Base64-looking blobs of 200+ characters, on one line or wrapped (4+ runs of 50+). The lookbehind lets
  // the wrapped form start only where a run starts, which keeps matching linear on long hostile lines.
  { source: "[A-Za-z0-9+/]{200,}={0,2}", says: "adds a long base64 blob, text a person cannot read" },
  {
    source: String.raw`(?<![A-Za-z0-9+/=])(?:[A-Za-z0-9+/]{50,}={0,2}\s+){3,}[A-Za-z0-9+/]{50,}`,
    says: "adds a long base64 blob, text a person cannot read",
  },
];

/** The default patterns' sources, for documentation and for hosts that extend rather than replace them. */
export const DEFAULT_SUSPICIOUS_PATTERNS: readonly string[] = DEFAULT_PATTERNS.map((p) => p.source);

/** Above this many cells the LCS table is skipped and the changed middle counts as fully rewritten. */
const MAX_LCS_CELLS = 1_000_000;
const CLIP = 120;

/** Throws a ConfigError naming `soul_guard.suspicious_patterns[i]` for every pattern that is not a regex. */
export function checkSoulGuardConfig(config: SoulGuardConfig): void {
  compilePatterns(config);
}

/**
 * Judges the prompt file at `path` as it is now (`after`, null when absent) against the version a person
 * last approved (`before`, null when there was none).
 */
export function evaluatePromptChange(
  path: string,
  before: string | null,
  after: string | null,
  config: SoulGuardConfig,
): SoulDecision {
  const diff = diffLines(before ?? "", after ?? "");
  const changed = diff.filter((d) => d.op !== " ").reduce((n, d) => n + normalise(d.text).length, 0);
  const changeRatio = changed / Math.max(sizeOf(before ?? ""), sizeOf(after ?? ""), 1);
  const decision: SoulDecision = {
    path,
    verdict: "accept",
    reasons: [],
    changeRatio,
    removedProtected: [],
    addedSuspicious: [],
  };
  if (!config.enabled || before === after) return decision;
  const patterns = compilePatterns(config);

  // Deleting, emptying or creating a file says more than its change ratio, which is then left unsaid.
  let whole: string | undefined;
  if (after === null) whole = `deletes ${path}`;
  else if (after.trim() === "" && before !== null && before.trim() !== "") whole = `empties ${path}`;
  else if (before === null && after.trim() !== "")
    whole = `creates ${path}, a new file that would enter the system prompt`;
  if (whole) decision.reasons.push(whole);
  else if (changeRatio > config.max_change_ratio)
    decision.reasons.push(
      `changes ${percent(changeRatio)} of the approved text of ${path} (more than the ${percent(config.max_change_ratio)} allowed without approval)`,
    );

  for (const line of removedLines(diff)) {
    const words = config.protected_words.filter((w) => protectedWordRegex(w)?.test(forMatching(line)));
    if (words.length === 0) continue;
    decision.removedProtected.push(line.trim());
    decision.reasons.push(
      `removes or rewrites a safety line (it says ${listWords(words)}): "${clip(line.trim())}"`,
    );
  }

  const seen = new Set<string>();
  for (const hunk of addedHunks(diff)) {
    const lines = hunk.map(forMatching);
    const candidates = lines.length > 1 ? [...lines, lines.join("\n")] : lines;
    for (const { regex, says } of patterns) {
      for (const text of candidates) {
        const match = regex.exec(text)?.[0];
        if (match === undefined || seen.has(`${says}\u0000${match}`)) continue;
        seen.add(`${says}\u0000${match}`);
        decision.addedSuspicious.push(clip(match));
        decision.reasons.push(`${says}: "${clip(match)}"`);
      }
    }
  }

  if (decision.reasons.length > 0) decision.verdict = "hold";
  return decision;
}

/** soul.md's decision: the guard before it covered every prompt file. */
export function evaluateSoulChange(
  before: string,
  after: string | null,
  config: SoulGuardConfig,
): SoulDecision {
  return evaluatePromptChange("soul.md", before, after, config);
}

/** One line for logs: `soul guard: hold instructions/x.md (143% changed): deletes …; …`. */
export function summariseDecision(decision: SoulDecision): string {
  const head = `soul guard: ${decision.verdict} ${decision.path} (${percent(decision.changeRatio)} changed)`;
  return decision.reasons.length === 0 ? head : `${head}: ${decision.reasons.join("; ")}`;
}

/**
 * A line diff of two texts, lines compared after whitespace normalisation. Common leading and trailing lines
 * are matched first, so a typical edit leaves a small middle for the quadratic LCS; a middle too large for it
 * is reported as all removed then all added, which can only make the guard stricter.
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const ka = a.map(normalise);
  const kb = b.map(normalise);
  let start = 0;
  while (start < a.length && start < b.length && ka[start] === kb[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && ka[endA - 1] === kb[endB - 1]) {
    endA--;
    endB--;
  }
  const kept = (text: string): DiffLine => ({ op: " ", text });
  return [
    ...b.slice(0, start).map(kept),
    ...lcsDiff(a.slice(start, endA), b.slice(start, endB), ka.slice(start, endA), kb.slice(start, endB)),
    ...b.slice(endB).map(kept),
  ];
}

function lcsDiff(a: string[], b: string[], ka: string[], kb: string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ op: "-", text });
  const added = (text: string): DiffLine => ({ op: "+", text });
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_LCS_CELLS) return [...a.map(removed), ...b.map(added)];
  // lcs(i, j): length of the longest common subsequence of ka[i..] and kb[j..].
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  const lcs = (i: number, j: number) => table[i * width + j] ?? 0;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = ka[i] === kb[j] ? lcs(i + 1, j + 1) + 1 : Math.max(lcs(i + 1, j), lcs(i, j + 1));
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && ka[i] === kb[j]) {
      out.push({ op: " ", text: b[j++] ?? "" });
      i++;
    } else if (i < n && (j >= m || lcs(i + 1, j) >= lcs(i, j + 1))) out.push(removed(a[i++] ?? ""));
    else out.push(added(b[j++] ?? ""));
  }
  return out;
}

/** Removed lines that do not reappear elsewhere as added lines: a moved line keeps its rule. */
function removedLines(diff: DiffLine[]): string[] {
  const addedKeys = new Map<string, number>();
  for (const d of diff) {
    if (d.op === "+") addedKeys.set(normalise(d.text), (addedKeys.get(normalise(d.text)) ?? 0) + 1);
  }
  const out: string[] = [];
  for (const d of diff) {
    if (d.op !== "-") continue;
    const left = addedKeys.get(normalise(d.text)) ?? 0;
    if (left > 0) addedKeys.set(normalise(d.text), left - 1);
    else out.push(d.text);
  }
  return out;
}

/** The added lines of each run of consecutive changed lines. */
function addedHunks(diff: DiffLine[]): string[][] {
  const hunks: string[][] = [];
  let current: string[] = [];
  for (const d of diff) {
    if (d.op === "+") current.push(d.text);
    else if (d.op === " " && current.length > 0) {
      hunks.push(current);
      current = [];
    }
  }
  if (current.length > 0) hunks.push(current);
  return hunks;
}

interface CompiledPattern {
  regex: RegExp;
  says: string;
}

function compilePatterns(config: SoulGuardConfig): CompiledPattern[] {
  const configured = config.suspicious_patterns;
  const problems: Array<{ key: string; rule: string }> = [];
  const compiled: CompiledPattern[] = [];
  const sources: readonly SuspiciousPattern[] = configured
    ? configured.map((source, i) => ({
        source,
        says: `adds text this host flags as suspicious (soul_guard.suspicious_patterns[${i}])`,
      }))
    : DEFAULT_PATTERNS;
  sources.forEach(({ source, says }, i) => {
    try {
      compiled.push({ regex: new RegExp(source, "i"), says });
    } catch (cause) {
      problems.push({
        key: `soul_guard.suspicious_patterns[${i}]`,
        rule: `must be a valid regular expression (${(cause as Error).message})`,
      });
    }
  });
  if (problems.length > 0) throw new ConfigError("ironclawd.toml", problems);
  return compiled;
}

/** "never" and "secret", "a", "b" and "c". */
function listWords(words: string[]): string {
  const quoted = words.map((w) => `"${w}"`);
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}

/** Whole-word, case-insensitive; undefined for a word that is only whitespace (it would match everywhere). */
function protectedWordRegex(word: string): RegExp | undefined {
  const core = forMatching(word);
  if (core === "") return undefined;
  const body = core.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&").replace(/ /g, "\\s+");
  return new RegExp(`(?<![\\p{L}\\p{N}_])${body}(?:s|es|d|ed)?(?![\\p{L}\\p{N}_])`, "iu");
}

function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** A line as the diff compares it: whitespace differences erased. */
function normalise(line: string): string {
  return line.replace(/\s+/g, " ").trim();
}

/** A line as protected words and patterns see it: look-alike and invisible characters folded away. */
function forMatching(line: string): string {
  return normalise(
    line
      .normalize("NFKC")
      .replace(/\p{Cf}/gu, "")
      .replace(/[\u2018\u2019\u02BC]/g, "'"),
  );
}

function sizeOf(text: string): number {
  return splitLines(text).reduce((n, line) => n + normalise(line).length, 0);
}

function percent(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}

function clip(text: string, max = CLIP): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
