import type { Readable, Writable } from "node:stream";
import { IronclawError } from "../core/index.js";

type TtyInput = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/** True when stdin is a terminal a person types into (then a value is asked for, never read from a pipe). */
export function isTerminal(stdin: Readable): boolean {
  return (stdin as TtyInput).isTTY === true && typeof (stdin as TtyInput).setRawMode === "function";
}

/**
 * Asks for one line on a terminal without echoing it: raw mode, so the characters typed never reach the screen
 * (or a terminal recording). Backspace edits, Enter ends, Ctrl-C and Ctrl-D abort.
 */
export function readHiddenLine(stdin: Readable, prompt: string, stderr: Writable): Promise<string> {
  const tty = stdin as TtyInput;
  // Echo goes off before the prompt shows: whatever is typed once it is visible never reaches the screen.
  tty.setRawMode?.(true);
  stderr.write(prompt);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = "";
    const finish = (error?: Error) => {
      stdin.off("data", onData);
      tty.setRawMode?.(false);
      stdin.pause();
      stderr.write("\n");
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return finish();
        if (char === "\u0003" || char === "\u0004")
          return finish(new IronclawError("aborted", "aborted: nothing was stored"));
        if (char === "\u007f" || char === "\b") typed = [...typed].slice(0, -1).join("");
        else typed += char;
      }
    };
    stdin.on("data", onData);
  });
}
