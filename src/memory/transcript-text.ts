const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?[ \t#]*$/;
// A line of only `=` or `-` turns the paragraph above it into a heading (setext); `<` may open an HTML block
// that runs to the end of the file. Both are escaped so that they stay text.
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const HTML_START = /^ {0,3}</;

/**
 * Someone's words made safe to place under a heading of a brain file: whatever a message says, it cannot add a
 * heading (which would re-parent the sections after it and could pose as another turn) nor leave a code fence
 * or an HTML block open (which would swallow the turns after it). ATX headings become bold lines, setext
 * underlines and HTML starts are backslash-escaped, an unclosed fence is closed; text inside fences is kept.
 */
export function quoteForBrain(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let fence: { char: string; length: number } | undefined;
  for (const line of lines) {
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      out.push(line);
      const marker = fenceMatch?.[1];
      if (marker?.[0] === fence.char && marker.length >= fence.length && fenceMatch?.[2]?.trim() === "") {
        fence = undefined;
      }
      continue;
    }
    if (fenceMatch?.[1] && !(fenceMatch[1][0] === "`" && fenceMatch[2]?.includes("`"))) {
      fence = { char: fenceMatch[1][0] as string, length: fenceMatch[1].length };
      out.push(line);
      continue;
    }
    const heading = ATX_HEADING.exec(line);
    if (heading) out.push(heading[1] ? `**${heading[1]}**` : "");
    else if (SETEXT_UNDERLINE.test(line) || HTML_START.test(line)) out.push(`\\${line.trimStart()}`);
    else out.push(line);
  }
  if (fence) out.push(fence.char.repeat(fence.length));
  return out.join("\n").trim();
}

/** Text on one line, clipped, with backticks swapped so it can sit inside an inline code span. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim().replaceAll("`", "'");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
