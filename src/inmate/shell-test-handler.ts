import { runInProcessGroup } from "../agent/index.js";
import { encodeFrame } from "../channel/index.js";
import { runFileOp } from "./brain-file-ops.js";
import type { CellHandler, GuestContext } from "./cell-handler.js";
import { succeedDevJob } from "./echo-handler.js";

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
 * DEV/TEST ONLY: runs each message's text with bash inside the cell exactly as the agent's bash tool does (the
 * tool sandbox, the process group, the stragglers' kill). The escape suite uses it to make a compromised
 * agent's attempts real. Directives for that suite play a compromised runtime: `!raw <base64>` writes bytes
 * to the channel unframed, `!exit <code>` ends the runtime as a crash would, `!oom` fills the heap until V8
 * aborts the runtime at its limit (what a runaway allocation does), and `!flood <count> <stall-ms>`
 * sends `count` bad frames each followed by a valid Heartbeat, then stops reading for `stall-ms`.
 * `!wait <seconds> <command>` runs the command with that time limit (at most 300 s) instead of 60 s: a probe
 * whose processes must all be alive at once, in one call, under emulation.
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
      if (text === "!oom") fillHeap();
      if (text.startsWith("!flood ")) {
        const [count = 0, stallMs = 0] = text.slice(7).split(" ").map(Number);
        context.writeRaw(floodFrames(context.userId, count));
        // Block the event loop: the runtime reads nothing the host answers, as a stopped runtime would.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, stallMs);
        yield { kind: "final", text: "flooded" };
        return;
      }
      const wait = /^!wait (\d+) /.exec(text);
      const outcome = wait
        ? await runShell(text.slice(wait[0].length), context, Math.min(Number(wait[1]), 300) * 1000)
        : await runShell(text, context, options.timeoutMs ?? 60_000);
      if (outcome.stdout) yield { kind: "delta", delta: outcome.stdout };
      yield { kind: "final", text: JSON.stringify(outcome), stopReason: "stop" };
    },
    onFileOp: (request, context) => runFileOp(context.brainRoot, request),
    onJobTrigger: succeedDevJob,
  };
}

/** Allocates until V8 reaches the cell's heap limit and aborts the process: node's own out-of-memory end. */
function fillHeap(): never {
  const kept: number[][] = [];
  for (;;) kept.push(new Array(1 << 20).fill(kept.length));
}

async function runShell(command: string, context: GuestContext, timeoutMs: number): Promise<ShellOutcome> {
  const run = await runInProcessGroup(command, {
    cwd: context.brainRoot,
    env: process.env,
    timeoutMs,
    maxOutputBytes: OUTPUT_CAP,
    signal: context.signal,
    separateStderr: true,
  });
  return {
    exit: run.exitCode,
    signal: run.signal,
    stdout: run.output,
    stderr: run.stderr ?? "",
    timedOut: run.timedOut,
  };
}

/**
 * What a runtime taken over by a tool could send: garbage the host must answer, each piece followed by a
 * Heartbeat that is valid on its own (its msg_id guessed ahead of the real counter), so that a counter of bad
 * frames in a row would never trip.
 */
function floodFrames(userId: string, count: number): Buffer {
  const garbage = Buffer.from([0, 0, 0, 1, 0x7b]);
  const base = 500_000;
  const parts: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    parts.push(garbage);
    parts.push(
      encodeFrame({
        type: "Heartbeat",
        user_id: userId,
        session_id: "cell",
        msg_id: base + i,
        timestamp: new Date().toISOString(),
      }),
    );
  }
  return Buffer.concat(parts);
}
