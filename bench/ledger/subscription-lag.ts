import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type EventStore, subscribe } from "../../src/ledger/index.js";
import { percentile } from "../percentile.js";
import { epochMs } from "./measure.js";

const WRITER = fileURLToPath(new URL("./lag-writer.ts", import.meta.url));

export interface LagResult {
  rate: number;
  achievedRate: number;
  events: number;
  pollIntervalMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

type WriterMessage =
  | { first: number; last: number; ackAt: number }
  | { done: true; millis: number; events: number };

/**
 * Subscription lag under load: a writer process appends at a steady rate while this process follows the ledger
 * with a live subscription. Lag is the time from the writer's acknowledgement of a batch to the subscriber
 * receiving each of its events. The subscriber hears of another process's SQLite commits only by polling, so
 * the poll interval bounds the lag there; PostgreSQL wakes it with NOTIFY.
 */
export async function measureLag(
  store: EventStore,
  writerArgs: string[],
  options: { rate: number; seconds: number; pollIntervalMs: number },
): Promise<LagResult> {
  const received = new Map<number, number>();
  const acks: Array<{ first: number; last: number; ackAt: number }> = [];
  let done: { millis: number; events: number } | undefined;
  const controller = new AbortController();
  const finished = () => done !== undefined && received.size >= done.events;

  const child = fork(
    WRITER,
    [...writerArgs, "--rate", String(options.rate), "--seconds", String(options.seconds)],
    {
      execArgv: ["--import", "tsx"],
    },
  );
  child.on("message", (message: WriterMessage) => {
    if ("done" in message) done = message;
    else acks.push(message);
    if (finished()) controller.abort();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  exited.then(() => {
    if (!done) controller.abort();
  });

  const after = await store.head();
  for await (const event of subscribe(store, {
    after,
    pollIntervalMs: options.pollIntervalMs,
    signal: controller.signal,
  })) {
    received.set(event.position, epochMs());
    if (finished()) controller.abort();
  }
  await exited;
  if (!done) throw new Error("lag writer died before finishing");

  const lags: number[] = [];
  for (const ack of acks)
    for (let p = ack.first; p <= ack.last; p++) {
      const at = received.get(p);
      // A subscriber may see a commit a hair before the writer gets its acknowledgement back: count that as 0.
      if (at !== undefined) lags.push(Math.max(0, at - ack.ackAt));
    }
  return {
    rate: options.rate,
    achievedRate: (done.events / done.millis) * 1000,
    events: done.events,
    pollIntervalMs: options.pollIntervalMs,
    p50Ms: percentile(lags, 50),
    p99Ms: percentile(lags, 99),
    maxMs: lags.reduce((a, b) => Math.max(a, b), 0),
  };
}
