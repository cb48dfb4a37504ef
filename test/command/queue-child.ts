import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptEntry } from "../support/built-script.js";

const SCRIPT = fileURLToPath(new URL("./fixtures/queue-process.ts", import.meta.url));

/** A fixtures/queue-process.ts child and the lines it has printed so far. */
export interface QueueChild {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first printed line that starts with `prefix`; rejects if the child exits first. */
  line(prefix: string): Promise<string>;
  exited: Promise<{ code: number | null; stderr: string }>;
}

export function startQueueChild(args: string[]): QueueChild {
  const child = spawn(process.execPath, [...scriptEntry(SCRIPT), ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let partial = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on("close", (code) => {
      for (const wake of waiters.splice(0)) wake();
      resolve({ code, stderr });
    }),
  );
  const line = async (prefix: string): Promise<string> => {
    for (;;) {
      const found = lines.find((l) => l.startsWith(prefix));
      if (found !== undefined) return found;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`queue child exited before printing "${prefix}": ${stderr}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { child, lines, line, exited };
}
