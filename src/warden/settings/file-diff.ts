import { diffLines } from "../soul/index.js";

/** Lines of unchanged text shown around each change. */
const CONTEXT = 3;

/**
 * A unified diff (`@@ -a,b +c,d @@` hunks, three lines of context) of two versions of one file, as `diff -u`
 * prints it: what a person reads before confirming a change.
 */
export function unifiedDiff(before: string, after: string, file: string): string {
  // A final newline ends the last line; it is not a line of its own.
  const lines = diffLines(before.replace(/\n$/, ""), after.replace(/\n$/, ""));
  // Each line's number in the old and the new file, counted as the diff goes.
  const numbered: Array<{ op: " " | "-" | "+"; text: string; old: number; new: number }> = [];
  let oldNo = 0;
  let newNo = 0;
  for (const line of lines) {
    if (line.op !== "+") oldNo++;
    if (line.op !== "-") newNo++;
    numbered.push({ ...line, old: oldNo, new: newNo });
  }
  const changed = numbered.flatMap((l, i) => (l.op === " " ? [] : [i]));
  if (changed.length === 0) return "";
  const out = [`--- ${file}`, `+++ ${file} (proposed)`];
  let index = 0;
  while (index < changed.length) {
    const first = changed[index] ?? 0;
    let last = first;
    // Changes closer together than two contexts share one hunk.
    while (index + 1 < changed.length && (changed[index + 1] ?? 0) - last <= 2 * CONTEXT)
      last = changed[++index] ?? last;
    index++;
    const from = Math.max(0, first - CONTEXT);
    const to = Math.min(numbered.length - 1, last + CONTEXT);
    const hunk = numbered.slice(from, to + 1);
    const oldCount = hunk.filter((l) => l.op !== "+").length;
    const newCount = hunk.filter((l) => l.op !== "-").length;
    const start = numbered[from];
    const oldStart = start ? start.old - (start.op === "+" ? 0 : 1) : 0;
    const newStart = start ? start.new - (start.op === "-" ? 0 : 1) : 0;
    out.push(
      `@@ -${oldStart + (oldCount > 0 ? 1 : 0)},${oldCount} +${newStart + (newCount > 0 ? 1 : 0)},${newCount} @@`,
    );
    for (const line of hunk) out.push(`${line.op}${line.text}`);
  }
  return out.join("\n");
}
