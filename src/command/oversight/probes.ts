import { statfs } from "node:fs/promises";
import type { EventStore } from "../../ledger/index.js";
import type { JobQueue } from "../queue/job-queue.js";
import type { ServiceProbe } from "./oversight-options.js";

/** The ledger answers a read of its head (SQLite file or PostgreSQL). */
export function ledgerProbe(store: EventStore): ServiceProbe {
  return { name: "ledger", check: async () => void (await store.head()) };
}

/** The worker queue answers a count of its jobs. */
export function queueProbe(queue: JobQueue): ServiceProbe {
  return { name: "queue", check: async () => void (await queue.counts()) };
}

/** The disk holding `path` has at least `minFreeBytes` free for an unprivileged writer. */
export function diskProbe(path: string, minFreeBytes: number): ServiceProbe {
  return {
    name: "disk",
    async check() {
      const fs = await statfs(path);
      const free = fs.bavail * fs.bsize;
      if (free < minFreeBytes)
        throw new Error(`${mib(free)} MiB free under ${path}, below the ${mib(minFreeBytes)} MiB required`);
    },
  };
}

/**
 * A model provider is reachable: its base URL answers HTTP at all (a 401 from a provider that wants a key still
 * proves the network path); a refused connection, a DNS failure or no answer in `timeoutMs` does not.
 */
export function reachableProbe(name: string, url: string, timeoutMs = 5_000): ServiceProbe {
  return {
    name,
    async check() {
      const response = await fetch(url, { method: "GET", signal: AbortSignal.timeout(timeoutMs) }).catch(
        (error: unknown) => {
          const cause = (error as { cause?: { code?: string } }).cause?.code;
          throw new Error(`${url} is unreachable${cause ? ` (${cause})` : `: ${(error as Error).message}`}`);
        },
      );
      await response.body?.cancel();
    },
  };
}

const mib = (bytes: number) => Math.floor(bytes / 1024 / 1024);
