import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptEntry } from "../support/built-script.js";

const WRITER = fileURLToPath(new URL("./fixtures/ledger-writer.ts", import.meta.url));

export interface Ack {
  position: number;
  eventId: string;
}

/** A ledger-writer.ts child process and the appends it has acknowledged so far. */
export interface WriterProcess {
  child: ChildProcess;
  acks: Ack[];
  /** The writer's own pid (not the tracer's, when it runs under one), once it has printed it. */
  pid: Promise<number>;
  /** Signals the writer process itself. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Resolves once at least `count` acks were printed; rejects if the writer exits first. */
  acked(count: number): Promise<void>;
  /** Resolves with the exit code (or signal) once stdout is drained. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Starts a writer; `wrap` puts a command in front of it (a tracer), which must run it as its child. */
export function startWriter(args: string[], wrap?: (command: string[]) => [string, string[]]): WriterProcess {
  const command = [process.execPath, ...scriptEntry(WRITER), ...args];
  const [file, argv] = wrap ? wrap(command) : [command[0] as string, command.slice(1)];
  const child = spawn(file, argv, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, IRONCLAW_LOG: "silent" },
  });
  let havePid: (pid: number) => void = () => undefined;
  let noPid: (error: Error) => void = () => undefined;
  const pid = new Promise<number>((resolve, reject) => {
    havePid = resolve;
    noPid = reject;
  });
  // Awaited only by kill(); a writer that exits early is reported through `exited` as well.
  pid.catch(() => undefined);
  const acks: Ack[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let partial = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      const [word, position, eventId] = line.split(" ");
      if (word === "pid" && position !== undefined) havePid(Number(position));
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
  exited.then(({ stderr }) => noPid(new Error(`the writer exited before printing its pid:\n${stderr}`)));
  return {
    child,
    acks,
    pid,
    async kill(signal) {
      process.kill(await pid, signal);
    },
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
