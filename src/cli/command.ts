import type { Readable, Writable } from "node:stream";

/** Where a command reads and writes; tests and the real process both provide one. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** One top-level `ironclaw <name> …` command. `run` returns the process exit code. */
export interface CliCommand {
  name: string;
  summary: string;
  /** Full usage text shown by `ironclaw <name> --help` and on usage errors. */
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

/** A usage mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function println(stream: Writable, text = ""): void {
  stream.write(`${text}\n`);
}
