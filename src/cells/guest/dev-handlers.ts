import { spawn } from "node:child_process";
import { runFileOp } from "./brain-file-ops.js";
import type { CellHandler, GuestContext, JobProgress, TurnEvent } from "./cell-handler.js";

/**
 * DEV/TEST ONLY: answers every message by echoing it word by word. It exists so the protocol, the backends
 * and the lifecycle can be exercised without a model; a production cell runs the agent handler.
 */
export function createEchoDevHandler(): CellHandler {
  return {
    name: "echo (dev/test only)",
    async *onUserMessage(message) {
      const words = message.text.split(/(?<=\s)/);
      for (const word of words) yield { kind: "delta", delta: word } satisfies TurnEvent;
      yield {
        kind: "final",
        text: message.text,
        usage: { input_tokens: words.length, output_tokens: words.length },
      };
    },
    onFileOp: (request, context) => runFileOp(context.brainRoot, request),
    onJobTrigger: succeedJob,
  };
}

/** What the shell test handler reports as a turn's final text (JSON), so tests can read the exit status. */
export interface ShellOutcome {
  exit: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

const OUTPUT_CAP = 64 * 1024;

/**
 * DEV/TEST ONLY: runs each message's text with /bin/sh inside the cell, the way the agent's bash tool would.
 * The escape suite uses it to make a compromised agent's attempts real. Two directives exist for that suite:
 * `!raw <base64>` writes bytes to the channel unframed, `!exit <code>` ends the runtime as a crash would.
 */
export function createShellTestHandler(options: { timeoutMs?: number } = {}): CellHandler {
  return {
    name: "shell (dev/test only)",
    async *onUserMessage(message, context) {
      const text = message.text;
      if (text.startsWith("!raw ")) {
        context.writeRaw(Buffer.from(text.slice(5), "base64"));
        yield { kind: "final", text: "raw bytes written" };
        return;
      }
      if (text.startsWith("!exit ")) process.exit(Number(text.slice(6)) || 1);
      const outcome = await runShell(text, context, options.timeoutMs ?? 60_000);
      if (outcome.stdout) yield { kind: "delta", delta: outcome.stdout };
      yield { kind: "final", text: JSON.stringify(outcome), stopReason: "stop" };
    },
    onFileOp: (request, context) => runFileOp(context.brainRoot, request),
    onJobTrigger: succeedJob,
  };
}

async function* succeedJob(): AsyncIterable<JobProgress> {
  yield { status: "running" };
  yield { status: "succeeded" };
}

function runShell(command: string, context: GuestContext, timeoutMs: number): Promise<ShellOutcome> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    // detached: the command gets its own process group, so a timeout kills everything it started.
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: context.brainRoot,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    context.signal.addEventListener("abort", killGroup, { once: true });
    child.stdout.on("data", (d: Buffer) => {
      if (stdout.length < OUTPUT_CAP) stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < OUTPUT_CAP) stderr += d.toString();
    });
    const finish = (exit: number | null, signal: string | null) => {
      clearTimeout(timer);
      killGroup();
      resolve({
        exit,
        signal,
        stdout: stdout.slice(0, OUTPUT_CAP),
        stderr: stderr.slice(0, OUTPUT_CAP),
        timedOut,
      });
    };
    child.on("error", (error) => {
      stderr += error.message;
      finish(null, null);
    });
    child.on("close", (code, signal) => finish(code, signal));
  });
}
