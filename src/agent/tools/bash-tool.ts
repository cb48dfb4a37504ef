import { mkdirSync } from "node:fs";
import { z } from "zod";
import { runInProcessGroup } from "./process-group.js";
import { defineTool, failed, ok } from "./tool-definition.js";

export interface BashToolOptions {
  /** The working directory of every command (`/tmp/workspace` in a cell). */
  workspace: string;
  /** Default and ceiling for one command (irowclaw.toml `tools.bash.timeout_ms`). */
  timeoutMs: number;
  maxOutputBytes?: number;
  /**
   * Extra environment; the runtime's own is not passed on (see below). A function is asked at each call: a
   * cell's HTTPS proxy and placeholders arrive with the warden's Hello, after the tool was made.
   */
  env?: Record<string, string> | (() => Record<string, string>);
}

const bashArgs = z.strictObject({
  command: z.string().min(1).describe("a bash command line, run with bash -c in the workspace"),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("shorter timeout for this command, in milliseconds"),
});

/** Runs shell commands in the workspace, bounded in time and output; the process group dies on timeout or abort. */
export function createBashTool(options: BashToolOptions) {
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024;
  // The runtime's environment holds provider keys (api_key_env); a command must not be able to print them.
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: options.workspace,
    LANG: process.env.LANG ?? "C.UTF-8",
    TERM: "dumb",
  };
  const extra = options.env;
  const envNow = (): NodeJS.ProcessEnv => ({ ...base, ...(typeof extra === "function" ? extra() : extra) });
  return defineTool({
    name: "bash",
    description:
      `Run a bash command in ${options.workspace}. Output (stdout and stderr together) is cut at ` +
      `${maxOutputBytes} bytes; the command is killed after ${options.timeoutMs} ms, and background processes ` +
      "are killed when it returns.",
    parameters: bashArgs,
    async execute(args, { signal }) {
      mkdirSync(options.workspace, { recursive: true });
      const timeoutMs = Math.min(args.timeout_ms ?? options.timeoutMs, options.timeoutMs);
      const run = await runInProcessGroup(args.command, {
        cwd: options.workspace,
        env: envNow(),
        timeoutMs,
        maxOutputBytes,
        signal,
      });
      const details = {
        pid: run.pid,
        exitCode: run.exitCode,
        signal: run.signal,
        timedOut: run.timedOut,
        droppedBytes: run.droppedBytes,
        strays: run.strays,
      };
      const cut = run.droppedBytes > 0 ? `\n[output cut: ${run.droppedBytes} more bytes dropped]` : "";
      const output = `${run.output}${cut}`;
      if (run.timedOut)
        return failed(`${output}\n[killed after ${timeoutMs} ms timeout]`.trimStart(), details);
      if (run.aborted) return failed(`${output}\n[killed: the turn was aborted]`.trimStart(), details);
      if (run.exitCode !== 0) {
        const how =
          run.exitCode !== null
            ? `exit code ${run.exitCode}`
            : run.signal !== null
              ? `signal ${run.signal}`
              : "the command could not start";
        return failed(`${output}\n[${how}]`.trimStart(), details);
      }
      return ok(output === "" ? "(no output)" : output, details);
    },
  });
}
