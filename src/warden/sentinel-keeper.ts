import { type ChildProcess, spawn } from "node:child_process";
import type { DutyOfficer } from "../command/index.js";
import type { Logger } from "../core/index.js";

/** What the sentinel process and the warden say over their IPC channel (a channel only the two of them hold). */
export const SENTINEL_MESSAGES = {
  restart: "restart-duty-officer",
  restarted: "duty-officer-restarted",
} as const;

/** The first respawn waits this long, each quick death doubles it, up to the cap. */
const FIRST_RESPAWN_MS = 1_000;
const MAX_RESPAWN_MS = 30_000;
/** A sentinel that ran this long before dying is respawned after the first delay again. */
const STEADY_MS = 60_000;
/** How long a stopping sentinel gets before it is killed. */
const STOP_GRACE_MS = 5_000;

export interface SentinelKeeperOptions {
  /** How to start `ironclaw sentinel`: the executable and its arguments, as the CLI that started the warden knows. */
  command: readonly string[];
  env: NodeJS.ProcessEnv;
  dutyOfficer: Pick<DutyOfficer, "id" | "restart">;
  logger: Logger;
}

/**
 * Keeps the sentinel (seed 000 §3.9) running as the warden's child, a process apart from the duty officer it
 * audits: it is told which duty officer to watch, and may ask the warden, over IPC, to restart it. When the sentinel
 * dies the warden starts another; when the warden dies the sentinel's channel closes and it exits too.
 */
export class SentinelKeeper {
  private child: ChildProcess | undefined;
  private closing = false;
  private delayMs = FIRST_RESPAWN_MS;
  private respawn: NodeJS.Timeout | undefined;

  constructor(private readonly options: SentinelKeeperOptions) {}

  /** The running sentinel's pid, or undefined between a death and its respawn. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    const [executable, ...args] = this.options.command;
    if (executable === undefined || this.closing) return;
    const startedAt = Date.now();
    const child = spawn(executable, [...args, "--duty-officer", this.options.dutyOfficer.id], {
      env: this.options.env,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child = child;
    child.on("message", (message: { type?: unknown }) => {
      if (message?.type !== SENTINEL_MESSAGES.restart) return;
      this.options.logger.warn("the sentinel asked for the duty officer's restart");
      void this.options.dutyOfficer.restart().then(
        () => child.connected && child.send({ type: SENTINEL_MESSAGES.restarted }),
        (error: unknown) =>
          this.options.logger.error({ err: error }, "the duty officer could not be restarted"),
      );
    });
    child.once("error", (error) => this.options.logger.error({ err: error }, "the sentinel could not start"));
    child.once("exit", (code, signal) => {
      this.child = undefined;
      if (this.closing) return;
      this.delayMs = Date.now() - startedAt >= STEADY_MS ? FIRST_RESPAWN_MS : this.delayMs;
      this.options.logger.warn(
        { code, signal, respawnMs: this.delayMs },
        "the sentinel died; starting another",
      );
      this.respawn = setTimeout(() => this.start(), this.delayMs);
      this.respawn.unref();
      this.delayMs = Math.min(this.delayMs * 2, MAX_RESPAWN_MS);
    });
  }

  /** Stops the sentinel (SIGTERM, then SIGKILL after a grace) and starts no other. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.respawn);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const kill = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    await exited;
    clearTimeout(kill);
  }
}

/**
 * In the sentinel process: asks the warden that started it to restart its duty officer, and resolves once the warden
 * says it has. Undefined when this process has no warden to ask (started by hand): it then only escalates.
 */
export function restartThroughWarden(timeoutMs = 30_000): (() => Promise<void>) | undefined {
  if (!process.send) return undefined;
  return () =>
    new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        process.off("message", onMessage);
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(
        () => done(new Error(`the warden did not restart it within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      const onMessage = (message: { type?: unknown }) => {
        if (message?.type === SENTINEL_MESSAGES.restarted) done();
      };
      process.on("message", onMessage);
      process.send?.({ type: SENTINEL_MESSAGES.restart }, undefined, {}, (error) => error && done(error));
    });
}
