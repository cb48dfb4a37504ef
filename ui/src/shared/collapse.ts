// A message longer than a screenful is shown folded, with "Show all": a pasted log or a long answer should
// not push the rest of the conversation out of reach. Measured on the text (lines or characters), so the
// decision is the same before and after a reload and does not wait for layout.

export const LONG_LINES = 30;
export const LONG_CHARS = 2_500;

export function isLongMessage(text: string): boolean {
  if (text.length > LONG_CHARS) return true;
  let lines = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    lines += 1;
    if (lines > LONG_LINES) return true;
  }
  return false;
}

/** What the fold's button says: how much is hidden. */
export function showAllLabel(text: string): string {
  const lines = text.split("\n").length;
  return lines > LONG_LINES ? `Show all ${lines} lines` : "Show all";
}
