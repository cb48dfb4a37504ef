import type { Readable, Writable } from "node:stream";

/** Where a command reads and writes; tests and the real process both provide one. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A usage mistake: exit code 2, printed with the command's usage lines unless `showUsage` is false. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  /**
   * False for a bad value of a named flag (`--by: must be one of …`): that one line says everything, and the
   * usage under it would only bury it. A mistake in the shape of the command line shows the usage.
   */
  readonly showUsage: boolean;
  /** The command path the parser had reached (`["user", "add"]`), so the hint can point at its --help. */
  readonly command: readonly string[] | undefined;

  constructor(message: string, options: { showUsage?: boolean; command?: readonly string[] } = {}) {
    super(message);
    this.showUsage = options.showUsage ?? true;
    this.command = options.command;
  }
}

export function println(stream: Writable, text = ""): void {
  stream.write(`${text}\n`);
}
