/** One row of a side-by-side diff: the old line on the left, the new one on the right (either may be absent). */
export interface DiffRow {
  left: { text: string; changed: boolean } | null;
  right: { text: string; changed: boolean } | null;
}

/**
 * Pairs a line diff (` ` kept, `-` removed, `+` added, as GET /api/soul/changes/:id gives it) into rows: each
 * run of removals sits beside the run of additions that follows it, so an edited line reads across.
 */
export function sideBySide(diff: { op: string; text: string }[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let i = 0;
  while (i < diff.length) {
    const line = diff[i];
    if (!line) break;
    if (line.op !== "-" && line.op !== "+") {
      rows.push({ left: { text: line.text, changed: false }, right: { text: line.text, changed: false } });
      i += 1;
      continue;
    }
    const removed: string[] = [];
    const added: string[] = [];
    while (diff[i]?.op === "-") removed.push(diff[i++]?.text ?? "");
    while (diff[i]?.op === "+") added.push(diff[i++]?.text ?? "");
    for (let n = 0; n < Math.max(removed.length, added.length); n++) {
      const left = removed[n];
      const right = added[n];
      rows.push({
        left: left === undefined ? null : { text: left, changed: true },
        right: right === undefined ? null : { text: right, changed: true },
      });
    }
  }
  return rows;
}
