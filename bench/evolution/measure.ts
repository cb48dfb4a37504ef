// The evolution store against appending the same bytes to a JSONL file, in one process: ingest throughput per
// payload size, reopening a full store, and rebuilding its projections.
import {
  closeSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EvolutionStore } from "../../src/evolution/store/index.js";
import type { BenchPayload } from "./workload.js";

/** What the bench needs of a store build: this checkout's, or another's passed with --before. */
export interface StoreBuild {
  EvolutionStore: Pick<typeof EvolutionStore, "open">;
  STATE_FILES: { envelopes: string; projected: string; events: string };
}

/** Wall and CPU time of one timed piece of work, in ms. */
export interface Timing {
  wallMs: number;
  cpuMs: number;
}

export interface SizeFigures {
  size: number;
  payloads: number;
  envelopes: number;
  /** Per-payload wall times in ms. */
  payloadMs: number[];
}

export interface IngestFigures extends Timing {
  envelopes: number;
  bySize: SizeFigures[];
}

function timed<T>(work: () => T): { value: T } & Timing {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = work();
  const used = process.cpuUsage(cpu);
  return { value, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

function bySize(payloads: readonly BenchPayload[], times: readonly number[]): SizeFigures[] {
  const sizes = new Map<number, SizeFigures>();
  payloads.forEach((payload, i) => {
    const entry = sizes.get(payload.size) ?? { size: payload.size, payloads: 0, envelopes: 0, payloadMs: [] };
    entry.payloads++;
    entry.envelopes += payload.envelopes;
    entry.payloadMs.push(times[i] ?? 0);
    sizes.set(payload.size, entry);
  });
  return [...sizes.values()].sort((a, b) => a.size - b.size);
}

/** A fresh temporary directory; the caller removes it. */
export function scratch(name: string): string {
  return mkdtempSync(join(tmpdir(), `ironclaw-bench-evolution-${name}-`));
}

/** Ingests every payload into a new store in `dir`, checking each was stored whole. */
export function ingestAll(build: StoreBuild, dir: string, payloads: readonly BenchPayload[]): IngestFigures {
  const store = build.EvolutionStore.open(dir);
  const times: number[] = [];
  const run = timed(() => {
    for (const payload of payloads) {
      const started = performance.now();
      const result = store.ingest(payload.bytes);
      times.push(performance.now() - started);
      if (result.stored !== payload.envelopes)
        throw new Error(`a ${payload.form} of ${payload.envelopes} stored ${result.stored}`);
    }
  });
  const envelopes = payloads.reduce((sum, p) => sum + p.envelopes, 0);
  return { wallMs: run.wallMs, cpuMs: run.cpuMs, envelopes, bySize: bySize(payloads, times) };
}

/**
 * The baseline: each payload's bytes appended as one line to one JSONL file, one write per payload, with an fsync
 * after each (what the store acknowledges, it has fsynced) or none at all.
 */
export function appendAll(file: string, payloads: readonly BenchPayload[], fsync: boolean): IngestFigures {
  const fd = openSync(file, "a");
  const times: number[] = [];
  try {
    const run = timed(() => {
      for (const payload of payloads) {
        const started = performance.now();
        const line = Buffer.concat([payload.bytes, Buffer.from("\n")]);
        let written = 0;
        while (written < line.length) written += writeSync(fd, line, written, line.length - written);
        if (fsync) fsyncSync(fd);
        times.push(performance.now() - started);
      }
    });
    const envelopes = payloads.reduce((sum, p) => sum + p.envelopes, 0);
    return { wallMs: run.wallMs, cpuMs: run.cpuMs, envelopes, bySize: bySize(payloads, times) };
  } finally {
    closeSync(fd);
  }
}

/** Opening a full store (reading every line into memory, checking for repairs), and how many envelopes it held. */
export function reopen(build: StoreBuild, dir: string): Timing & { envelopes: number; projected: number } {
  const { value: store, wallMs, cpuMs } = timed(() => build.EvolutionStore.open(dir));
  return { wallMs, cpuMs, envelopes: store.envelopes().length, projected: store.projected().length };
}

/** The reopen baseline: reading the same three files and JSON.parse of every line, nothing kept but a count. */
export function parseFiles(build: StoreBuild, dir: string): Timing & { lines: number } {
  const run = timed(() => {
    let lines = 0;
    for (const name of [build.STATE_FILES.envelopes, build.STATE_FILES.projected, build.STATE_FILES.events]) {
      const text = readFileSync(join(dir, name), "utf8");
      for (const line of text.split("\n")) {
        if (line === "") continue;
        JSON.parse(line);
        lines++;
      }
    }
    return lines;
  });
  return { wallMs: run.wallMs, cpuMs: run.cpuMs, lines: run.value };
}

/**
 * Rebuilding every projection: the projected file emptied, as a crash between the two writes leaves it for its
 * last payload, and the store reopened, which projects whatever is missing. Reopen time is included.
 */
export function reproject(build: StoreBuild, dir: string): Timing & { projected: number } {
  truncateSync(join(dir, build.STATE_FILES.projected), 0);
  const run = timed(() => build.EvolutionStore.open(dir));
  return { wallMs: run.wallMs, cpuMs: run.cpuMs, projected: run.value.recovery.projected };
}

export function remove(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
