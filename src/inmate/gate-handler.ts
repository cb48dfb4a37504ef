import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { runInProcessGroup } from "../agent/index.js";
import { runFileOp } from "./brain-file-ops.js";
import type { CellHandler, GuestContext } from "./cell-handler.js";
import { succeedDevJob } from "./echo-handler.js";

/** What command's integration asks a gate cell to run: its acceptance and policy commands, in order. */
export interface GateRequest {
  commands: string[];
  /** Brain-relative directory the commands run in (default `work`, where the merged tree was copied). */
  dir: string;
  /** Limit of each command (default 10 minutes). */
  timeoutMs: number;
}

/** One command's outcome; the last result is the first failure, if any. */
export interface GateCommandResult {
  command: string;
  exit: number | null;
  stdout_tail: string;
  stderr_tail: string;
  timed_out: boolean;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** What is kept of each stream while a command runs; only its tail is answered. */
const CAPTURE_BYTES = 1024 * 1024;
const TAIL_CHARS = 4096;

/**
 * The gate cell's handler: runs an order's acceptance commands over its merged tree, with bash in the tool
 * sandbox exactly as the agent's bash tool does, and stops at the first failure. The tree is the order's code,
 * untrusted, so it runs here, in a cell without network or host paths, never on the host.
 */
export function createGateHandler(): CellHandler {
  return {
    name: "gate",
    async *onUserMessage(message, context) {
      const parsed = parseGateRequest(message.text);
      if (typeof parsed === "string") {
        yield { kind: "final", text: JSON.stringify({ error: parsed }), stopReason: "error", error: parsed };
        return;
      }
      const results = await runGate(parsed, context);
      yield { kind: "final", text: JSON.stringify({ results }), stopReason: "stop" };
    },
    onFileOp: (request, context) => runFileOp(context.brainRoot, request),
    onJobTrigger: succeedDevJob,
  };
}

/** The request, or why it is refused (naming the field and the rule). */
export function parseGateRequest(text: string): GateRequest | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "the message must be a JSON object { commands, dir?, timeout_ms? }";
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return "the message must be a JSON object";
  const { commands, dir = "work", timeout_ms = DEFAULT_TIMEOUT_MS } = body as Record<string, unknown>;
  if (!Array.isArray(commands) || !commands.every((c) => typeof c === "string" && c.trim() !== ""))
    return "commands: must be an array of non-empty strings";
  if (typeof dir !== "string" || dir.startsWith("/") || dir.split("/").includes(".."))
    return "dir: must be a path relative to the brain, without ..";
  if (typeof timeout_ms !== "number" || !Number.isInteger(timeout_ms) || timeout_ms < 1)
    return "timeout_ms: must be a whole number of milliseconds from 1";
  return { commands, dir, timeoutMs: timeout_ms };
}

async function runGate(request: GateRequest, context: GuestContext): Promise<GateCommandResult[]> {
  const cwd = join(context.brainRoot, request.dir);
  mkdirSync(cwd, { recursive: true });
  // As the bash tool: the runtime's own environment is not passed on.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: cwd,
    LANG: process.env.LANG ?? "C.UTF-8",
    TERM: "dumb",
    CI: "1",
  };
  const results: GateCommandResult[] = [];
  for (const command of request.commands) {
    const run = await runInProcessGroup(command, {
      cwd,
      env,
      timeoutMs: request.timeoutMs,
      maxOutputBytes: CAPTURE_BYTES,
      signal: context.signal,
      separateStderr: true,
    });
    const result = {
      command,
      exit: run.exitCode,
      stdout_tail: run.output.slice(-TAIL_CHARS),
      stderr_tail: (run.stderr ?? "").slice(-TAIL_CHARS),
      timed_out: run.timedOut,
    };
    results.push(result);
    if (result.exit !== 0) break;
  }
  return results;
}
