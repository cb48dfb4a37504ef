/** A conversation's title: the first line of its first question, cut at 80 characters. */
export function titleOf(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}
