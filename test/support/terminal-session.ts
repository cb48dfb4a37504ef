import { type ChildProcess, spawn } from "node:child_process";

/** A program run on a real pseudo-terminal, driven as a person would: wait for a prompt, type an answer. */
export interface TerminalSession {
  readonly child: ChildProcess;
  /** Everything the terminal showed so far (the program's output and the echo of what was typed). */
  output(): string;
  /** Waits until the output after the last match shows `pattern`; rejects when the program ends first or time runs out. */
  expect(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Types `text` (a line ends with "\r", Enter on a terminal). */
  type(text: string): void;
  readonly exited: Promise<number | null>;
}

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `argv` under util-linux `script`, which gives it a pseudo-terminal of its own: stdin is a TTY, raw mode and
 * echo work as on a real one. What is typed here goes through script to that terminal.
 */
export function startTerminalSession(argv: string[], env: NodeJS.ProcessEnv, cwd: string): TerminalSession {
  const child = spawn("script", ["-qfec", argv.map(quote).join(" "), "/dev/null"], {
    cwd,
    env: { ...env, TERM: "dumb", COLUMNS: "120", LINES: "50" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let cursor = 0;
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    out += chunk.toString("utf8");
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  let ended = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      ended = true;
      for (const listener of listeners) listener();
      resolve(code);
    }),
  );
  return {
    child,
    output: () => out,
    exited,
    type: (text) => child.stdin?.write(text),
    expect(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const finish = (error?: Error, match?: RegExpExecArray) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (match) resolve(match);
          else reject(new Error(`${error?.message}\n--- terminal so far ---\n${out.slice(-4000)}`));
        };
        const timer = setTimeout(
          () => finish(new Error(`not shown within ${timeoutMs} ms: ${pattern}`)),
          timeoutMs,
        );
        const check = () => {
          const match = pattern.exec(out.slice(cursor));
          if (match) {
            cursor += match.index + match[0].length;
            finish(undefined, match);
          } else if (ended) finish(new Error(`the program ended before showing ${pattern}`));
        };
        listeners.add(check);
        check();
      });
    },
  };
}
