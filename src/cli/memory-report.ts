import type { Writable } from "node:stream";
import type { BrainMemory, IndexProgress, IndexReport, SearchHit } from "../memory/index.js";
import { type CliIo, println } from "./command.js";

/** One search hit: where, under which headings, its score from each leg, and the start of its text. */
export function printHit(out: Writable, hit: SearchHit, rank: number): void {
  const where = `${hit.path}:${hit.startLine}-${hit.endLine}`;
  const legs = `semantic ${formatScore(hit.semantic.similarity)} → ${hit.semantic.score.toFixed(2)}, lexical ${formatScore(hit.lexical.bm25)} → ${hit.lexical.score.toFixed(2)}`;
  println(out, `${rank}. ${where}  ${hit.headings.join(" › ") || "(top of file)"}`);
  println(out, `   score ${hit.score.toFixed(3)} (${legs})`);
  const preview = hit.text.replace(/\s+/g, " ").trim();
  println(out, `   ${preview.length > 160 ? `${preview.slice(0, 157)}…` : preview}`);
}

function formatScore(value: number | null): string {
  return value === null ? "–" : value.toFixed(3);
}

export function printStatus(memory: BrainMemory, json: boolean, io: CliIo): number {
  const s = memory.status();
  if (json) {
    println(io.stdout, JSON.stringify(s, null, 2));
    return 0;
  }
  println(io.stdout, `brain        ${s.brain}`);
  println(io.stdout, `database     ${s.database} (${(s.databaseBytes / 1024 / 1024).toFixed(1)} MiB)`);
  println(io.stdout, `files        ${s.files}`);
  println(io.stdout, `chunks       ${s.chunks}`);
  println(
    io.stdout,
    `embedder     ${s.embedder ?? "none yet"}${s.embedderStale ? " (config changed: index re-embeds)" : ""}`,
  );
  println(
    io.stdout,
    `vector lists ${s.vectorLists}${s.vectorLists > 1 ? " (inverted file)" : " (exact scan)"}`,
  );
  println(io.stdout, `compactions  ${s.compactions}`);
  println(io.stdout, `last indexed ${s.lastIndexedAt ?? "never"}`);
  return 0;
}

export function printReport(report: IndexReport, json: boolean, io: CliIo): void {
  for (const skipped of report.skipped) println(io.stderr, `skipped ${skipped.path}: ${skipped.reason}`);
  if (json) {
    println(io.stdout, JSON.stringify(report, null, 2));
    return;
  }
  const files = `${report.files} files (${report.updated} updated, ${report.unchanged} unchanged, ${report.removed} removed)`;
  const chunks = `+${report.chunksAdded} −${report.chunksRemoved} chunks, ${report.chunksMoved} moved`;
  const vectors = `${report.embedded} embedded, ${report.cacheHits} from cache`;
  const threads = report.worker ? " (files read and embedded on a second thread)" : "";
  println(io.stdout, `indexed ${files}: ${chunks}; ${vectors}; ${report.durationMs} ms${threads}`);
  if (report.reembedded)
    println(io.stdout, "the embedder changed since the last pass: every chunk was embedded again");
  if (report.listsRebuilt) println(io.stdout, "vector lists retrained");
}

/**
 * A progress bar redrawn in place on a terminal; elsewhere (logs, CI) one line every two seconds, and only once
 * a run has lasted that long, so short runs print nothing.
 */
export function progressReporter(stream: Writable): { update(p: IndexProgress): void; done(): void } {
  const tty = (stream as NodeJS.WriteStream).isTTY === true;
  const started = Date.now();
  let lastLine = 0;
  let drawn = false;
  return {
    update(p) {
      const now = Date.now();
      if (tty) {
        const width = 28;
        const filled = Math.round((p.done / Math.max(1, p.total)) * width);
        const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
        const label = (p.path ?? "").slice(-40);
        stream.write(`\r${bar} ${p.done}/${p.total} files  ${label.padEnd(40)}`);
        drawn = true;
      } else if (now - started >= 2000 && now - lastLine >= 2000) {
        stream.write(`indexed ${p.done}/${p.total} files\n`);
        lastLine = now;
      }
    },
    done() {
      if (drawn) stream.write("\n");
    },
  };
}
