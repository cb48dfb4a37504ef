import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const WRITER = fileURLToPath(new URL("./fixtures/ledger-writer.ts", import.meta.url));

export interface Ack {
  position: number;
  eventId: string;
}

/** A ledger-writer.ts child process and the appends it has acknowledged so far. */
export interface WriterProcess {
  child: ChildProcess;
  acks: Ack[];
  /** Resolves once at least `count` acks were printed; rejects if the writer exits first. */
  acked(count: number): Promise<void>;
  /** Resolves with the exit code (or signal) once stdout is drained. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

export function startWriter(args: string[]): WriterProcess {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, IRONCLAW_LOG: "silent" },
  });
  const acks: Ack[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let partial = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      const [word, position, eventId] = line.split(" ");
      if (word === "ack" && position !== undefined && eventId !== undefined)
        acks.push({ position: Number(position), eventId });
    }
    for (const w of waiters.filter((w) => acks.length >= w.count)) w.resolve();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.on("close", (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    child,
    acks,
    exited,
    acked(count) {
      if (acks.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiters.push({ count, resolve });
        exited.then(({ code, stderr }) =>
          reject(new Error(`writer exited (${code}) after ${acks.length} of ${count} acks:\n${stderr}`)),
        );
      });
    },
  };
}
