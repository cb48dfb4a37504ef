import { lstatSync, mkdirSync } from "node:fs";

/**
 * How a cell tells its runtime to contain tool processes (set by the cell backend, never by the brain):
 * `IRONCLAW_TOOL_SANDBOX=bwrap` runs every tool command in a nested bubblewrap sandbox, and
 * `IRONCLAW_TOOL_READONLY` lists (colon-separated) the directories tools may read but never change.
 */
export const TOOL_SANDBOX_ENV = "IRONCLAW_TOOL_SANDBOX";
export const TOOL_READONLY_ENV = "IRONCLAW_TOOL_READONLY";

export interface ToolSandbox {
  kind: "bwrap";
  /** Absolute directories bound read-only over themselves for tools (the brain's config/ and db/). */
  readOnly: string[];
}

/** The sandbox the environment asks for; undefined when tools run as plain child processes. */
export function toolSandboxFromEnv(env: NodeJS.ProcessEnv = process.env): ToolSandbox | undefined {
  const kind = env[TOOL_SANDBOX_ENV];
  if (kind === undefined || kind === "") return undefined;
  if (kind !== "bwrap")
    throw new Error(`${TOOL_SANDBOX_ENV}=${kind} is not known: use bwrap or leave it unset`);
  const readOnly = (env[TOOL_READONLY_ENV] ?? "").split(":").filter(Boolean);
  for (const dir of readOnly) {
    if (!dir.startsWith("/")) throw new Error(`${TOOL_READONLY_ENV}: ${dir} is not an absolute path`);
  }
  return { kind, readOnly };
}

/**
 * The command line that runs `argv` inside the sandbox. Why each part:
 * - a user namespace of its own: the runtime, which holds the channel to the warden, lives in the parent one,
 *   so a tool can neither ptrace it, nor take its fds (pidfd_getfd, /proc/<pid>/fd), nor read its environ,
 *   even as the same uid; `--disable-userns` keeps tools from nesting further;
 * - a pid namespace of its own: when the command ends, its namespace's init exits and the kernel kills every
 *   process left in it, setsid/nohup daemons included; `--die-with-parent` does the same when it is killed;
 * - the read-only directories bound over themselves: tools cannot write, rename or replace them (a mount
 *   point cannot be moved), while the runtime, outside this sandbox, still can.
 * `--dev-bind / /` keeps the cell's own view (its /dev, /proc and tmpfs mounts) for everything else.
 */
export function sandboxedCommand(
  sandbox: ToolSandbox,
  argv: string[],
  cwd: string,
): { file: string; args: string[] } {
  for (const dir of sandbox.readOnly) ensureRealDirectory(dir);
  return {
    file: "bwrap",
    args: [
      ...["--unshare-user", "--unshare-pid", "--disable-userns", "--die-with-parent", "--new-session"],
      ...["--dev-bind", "/", "/"],
      ...sandbox.readOnly.flatMap((dir) => ["--ro-bind", dir, dir]),
      ...["--chdir", cwd, "--"],
      ...argv,
    ],
  };
}

/**
 * A read-only directory must exist before the first tool runs (or a tool could create it, and with it the
 * configuration it grants itself) and must be a real directory (a link would redirect the bind).
 */
function ensureRealDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const info = lstatSync(dir);
  if (!info.isDirectory()) {
    throw new Error(
      `${dir} must be a real directory for tools to run (it is a link or a file): move it away`,
    );
  }
}
