import { resolve } from "node:path";
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { createLogger, ironclawHome } from "../../core/index.js";
import {
  BrainMemory,
  buildWordTableFile,
  type IndexProgress,
  type IndexReport,
  type SearchHit,
  type SearchMode,
  wordTableFile,
} from "../../memory/index.js";
import { type CliCommand, type CliIo, println, UsageError } from "../command.js";

const usage = `Usage: ironclaw memory index   --brain <dir> [--json] [--quiet]
       ironclaw memory reindex --brain <dir> [--json] [--quiet]
       ironclaw memory search  --brain <dir> <query…> [--top-k <n>] [--mode hybrid|lexical|semantic] [--json]
       ironclaw memory status  --brain <dir> [--json]
       ironclaw memory prepare

index    index what changed since the last pass (unchanged files are skipped by mtime, size and hash)
reindex  rebuild the index from the markdown; vectors of unchanged text come from the embedding cache
search   hybrid retrieval: 0.7 × semantic + 0.3 × lexical by default, or the agent profile's weights
status   files, chunks, embedder, vector lists and database size
prepare  build the built-in embedder's word table under $IRONCLAW_HOME/embeddings (otherwise built on first use)

Options:
  --brain <dir>   the brain directory (soul.md, memory.md, logs/, db/ironclaw.db …)
  --agent <name>  whose [retrieval] settings apply (default: default_agent of config/irowclaw.toml)
  --top-k <n>     number of results (1–100)
  --mode <mode>   hybrid (default), lexical (FTS5 bm25 only) or semantic (vectors only)
  --json          machine-readable output on stdout
  --quiet         no progress on stderr`;

const options = {
  brain: { type: "string" },
  agent: { type: "string" },
  "top-k": { type: "string" },
  mode: { type: "string" },
  json: { type: "boolean" },
  quiet: { type: "boolean" },
} as const;

export const memoryCommand: CliCommand = {
  name: "memory",
  summary: "index and search a brain's markdown memory (FTS5 + vector hybrid retrieval)",
  usage,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv);
    const [action, ...rest] = positionals;
    if (action === "prepare") return prepare(io);
    if (action === undefined) throw new UsageError("missing action");
    if (!["index", "reindex", "search", "status"].includes(action))
      throw new UsageError(`unknown action '${action}'`);
    if (values.brain === undefined) throw new UsageError("missing --brain <dir>");
    const memory = await BrainMemory.open(resolve(io.cwd, values.brain), {
      env: io.env,
      dataDir: ironclawHome(io.env),
      ...(values.agent === undefined ? {} : { agent: values.agent }),
      logger: createLogger("memory", { level: io.env.IRONCLAW_LOG ?? "warn" }),
    });
    try {
      if (action === "search") return await search(memory, rest.join(" "), values, io);
      if (action === "status") return status(memory, values.json === true, io);
      const progress = values.quiet ? undefined : progressReporter(io.stderr);
      const pass = { onProgress: (p: IndexProgress) => progress?.update(p) };
      const report = action === "index" ? await memory.index(pass) : await memory.reindex(pass);
      progress?.done();
      printReport(report, values.json === true, io);
      return 0;
    } finally {
      await memory.close();
    }
  },
};

function parseCli(argv: string[]) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function prepare(io: CliIo): Promise<number> {
  const file = wordTableFile(ironclawHome(io.env));
  const started = performance.now();
  await buildWordTableFile(file);
  println(io.stdout, `built ${file} in ${Math.round(performance.now() - started)} ms`);
  return 0;
}

async function search(
  memory: BrainMemory,
  query: string,
  values: { "top-k"?: string; mode?: string; json?: boolean },
  io: CliIo,
): Promise<number> {
  if (query.trim() === "") throw new UsageError("missing <query>");
  const mode = values.mode ?? "hybrid";
  if (mode !== "hybrid" && mode !== "lexical" && mode !== "semantic") {
    throw new UsageError(`--mode must be hybrid, lexical or semantic, not '${mode}'`);
  }
  const topK = values["top-k"] === undefined ? undefined : Number(values["top-k"]);
  if (topK !== undefined && !Number.isInteger(topK)) throw new UsageError("--top-k must be an integer");
  const started = performance.now();
  const hits = await memory.search(query, {
    mode: mode as SearchMode,
    ...(topK === undefined ? {} : { topK }),
  });
  const tookMs = Math.round((performance.now() - started) * 100) / 100;
  if (values.json) {
    println(io.stdout, JSON.stringify({ query, mode, tookMs, results: hits }, null, 2));
    return 0;
  }
  if (hits.length === 0) println(io.stdout, "no results");
  for (const [i, hit] of hits.entries()) printHit(io.stdout, hit, i + 1);
  return 0;
}

function printHit(out: Writable, hit: SearchHit, rank: number): void {
  const where = `${hit.path}:${hit.startLine}-${hit.endLine}`;
  const legs = `semantic ${fmt(hit.semantic.similarity)} → ${hit.semantic.score.toFixed(2)}, lexical ${fmt(hit.lexical.bm25)} → ${hit.lexical.score.toFixed(2)}`;
  println(out, `${rank}. ${where}  ${hit.headings.join(" › ") || "(top of file)"}`);
  println(out, `   score ${hit.score.toFixed(3)} (${legs})`);
  const preview = hit.text.replace(/\s+/g, " ").trim();
  println(out, `   ${preview.length > 160 ? `${preview.slice(0, 157)}…` : preview}`);
}

function fmt(value: number | null): string {
  return value === null ? "–" : value.toFixed(3);
}

function status(memory: BrainMemory, json: boolean, io: CliIo): number {
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

function printReport(report: IndexReport, json: boolean, io: CliIo): void {
  for (const skipped of report.skipped) println(io.stderr, `skipped ${skipped.path}: ${skipped.reason}`);
  if (json) {
    println(io.stdout, JSON.stringify(report, null, 2));
    return;
  }
  const files = `${report.files} files (${report.updated} updated, ${report.unchanged} unchanged, ${report.removed} removed)`;
  const chunks = `+${report.chunksAdded} −${report.chunksRemoved} chunks, ${report.chunksMoved} moved`;
  const vectors = `${report.embedded} embedded, ${report.cacheHits} from cache`;
  println(io.stdout, `indexed ${files}: ${chunks}; ${vectors}; ${report.durationMs} ms`);
  if (report.reembedded)
    println(io.stdout, "the embedder changed since the last pass: every chunk was embedded again");
  if (report.listsRebuilt) println(io.stdout, "vector lists retrained");
}

/**
 * A progress bar redrawn in place on a terminal; elsewhere (logs, CI) one line every two seconds, and only once
 * a run has lasted that long, so short runs print nothing.
 */
function progressReporter(stream: Writable): { update(p: IndexProgress): void; done(): void } {
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
