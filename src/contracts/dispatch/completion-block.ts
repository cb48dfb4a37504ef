import type { Issue } from "../../core/index.js";

/**
 * A complete `<completion>…</completion>` block whose body holds no other opening tag: prose that mentions
 * "<completion>" before the real block therefore does not swallow it.
 */
const BLOCK = /<completion>((?:(?!<completion>)[\s\S])*?)<\/completion>/g;

/** A body wrapped in a markdown code fence (```json … ```), which models often add inside the tags. */
const FENCED = /^(\s*```[^\n]*\n)([\s\S]*?)\n?[ \t]*```\s*$/;

/** Where the JSON of the single completion block sits in the worker's output. */
export interface CompletionBlock {
  json: string;
  /** Offset of `json` in the full output, so that syntax errors point at the worker's own line. */
  offset: number;
}

/** Finds exactly one `<completion>` block in a worker's full output text. */
export function extractCompletionBlock(text: string): CompletionBlock | { issues: Issue[] } {
  const blocks = [...text.matchAll(BLOCK)];
  if (blocks.length > 1) {
    const lines = blocks.map((b) => lineColumn(text, b.index).line).join(", ");
    return fail(
      "multiple_completion_blocks",
      `found ${blocks.length} <completion> blocks (lines ${lines}); exactly one is required`,
    );
  }
  const block = blocks[0];
  if (block === undefined) {
    const open = text.indexOf("<completion>");
    return open < 0
      ? fail("no_completion_block", "no <completion> block")
      : fail(
          "unclosed_completion_block",
          `<completion> at line ${lineColumn(text, open).line} is not closed by </completion>`,
        );
  }
  const body = block[1] ?? "";
  const bodyOffset = block.index + "<completion>".length;
  const fenced = FENCED.exec(body);
  if (fenced === null) return { json: body, offset: bodyOffset };
  return { json: fenced[2] ?? "", offset: bodyOffset + (fenced[1]?.length ?? 0) };
}

/** The completion contract's `decodeText`: the parsed JSON of the one block, or where it went wrong. */
export function decodeCompletionText(text: string): { value: unknown } | { issues: Issue[] } {
  const block = extractCompletionBlock(text);
  if ("issues" in block) return block;
  if (block.json.trim() === "") return fail("invalid_json", "<completion> block is empty");
  try {
    return { value: JSON.parse(block.json) };
  } catch (cause) {
    const message = (cause as Error).message;
    const at = /at position (\d+)/.exec(message)?.[1];
    // V8 gives no position when the input ends early; the end of the block is where it went wrong.
    const position =
      at !== undefined ? Number(at) : /end of JSON/i.test(message) ? block.json.length : undefined;
    const where =
      position === undefined ? "" : ` (${formatLineColumn(lineColumn(text, block.offset + position))})`;
    const reason = message.replace(/ in JSON at position \d+.*$/s, "");
    return fail("invalid_json", `<completion> block is not valid JSON${where}: ${reason}`);
  }
}

function fail(code: string, message: string): { issues: Issue[] } {
  return { issues: [{ path: "$", code, message }] };
}

/** 1-based line and column of an offset; a CR before LF ends the line and so never shifts a column. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

function formatLineColumn(at: { line: number; column: number }): string {
  return `line ${at.line}, column ${at.column}`;
}
