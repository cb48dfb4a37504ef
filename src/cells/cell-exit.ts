import type { CellExit } from "./cell.js";

/** What node prints when V8 reaches the heap limit a cell runs with (--max-old-space-size). */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit|Allocation failed/;
/** Lines of node's native stack dump (" 7: 0x1112e9c v8::internal::Heap…"): nothing an operator can act on. */
const NATIVE_FRAME = /^\s*\d+: 0x[0-9a-f]+ /;

/**
 * Why a cell ended, in words an operator and its user can read: "it ran out of memory (exit code 134: FATAL
 * ERROR: Reached heap limit …)", "it was killed (SIGKILL)", "it exited with code 1". Built from the exit and
 * what the cell's node wrote last.
 */
export function describeCellExit(exit: CellExit): string {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code ?? "unknown"}`;
  const said = keyLine(exit.stderr ?? "");
  if (said && OUT_OF_MEMORY.test(said)) return `it ran out of memory (${how}: ${said})`;
  if (exit.signal === "SIGKILL")
    return `it was killed (${how}; the host ends a cell this way when it passes its memory limit)`;
  if (said) return `it stopped (${how}: ${said})`;
  return `it stopped (${how}; ${exit.reason})`;
}

/**
 * The last lines a cell wrote to stderr, without node's native stack frames, at most `count` of them: what an
 * exit reports.
 */
export function stderrTail(text: string, count = 20): string {
  return text
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line !== "" && !NATIVE_FRAME.test(line) && line !== "----- Native stack trace -----")
    .slice(-count)
    .join("\n");
}

/** The line that says most: node's FATAL ERROR, else the last line naming an error, else the last line. */
function keyLine(stderr: string): string | undefined {
  const lines = stderr.split("\n").filter((line) => line.trim() !== "");
  const fatal = lines.find((line) => /FATAL ERROR|Fatal error|Aborted/.test(line));
  const error = [...lines].reverse().find((line) => /\b\w*Error\b|\berror:/i.test(line));
  const line = (fatal ?? error ?? lines.at(-1))?.trim();
  return line && line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
