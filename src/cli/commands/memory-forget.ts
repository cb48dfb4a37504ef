import { resolve } from "node:path";
import { AgentDatabase, DayLog, forgetMemory, MemoryChangeLog } from "../../agent/index.js";
import { createLogger, InvalidInputError, IronclawError, ironclawHome } from "../../core/index.js";
import { BrainMemory } from "../../memory/index.js";
import { OpenAiEmbedder } from "../../providers/index.js";
import { type CliIo, println, UsageError } from "../command.js";

export interface MemoryForgetOptions {
  /** A query (every passage holding all its words) or a chunk id from `memory search --json`. */
  target: string;
  brain?: string;
  /** Without it, only show what would be forgotten. */
  yes: boolean;
  json: boolean;
}

/**
 * `ironclaw memory forget <query|chunk-id> --brain <dir> [--yes] [--json]`: shows what would be removed from the
 * brain's markdown; with --yes removes it for good (files, index, the database's free space, stored
 * conversations and audit copies) and records where, by hash. Exit 0 when something matched, 1 when nothing
 * did or a chunk is gone, 2 for a usage mistake.
 */
export async function runMemoryForget(options: MemoryForgetOptions, io: CliIo): Promise<number> {
  if (options.brain === undefined || options.brain.trim() === "")
    throw new UsageError("--brain: the brain directory is required", { showUsage: false });
  let memory: BrainMemory | undefined;
  let db: AgentDatabase | undefined;
  try {
    memory = await BrainMemory.open(resolve(io.cwd, options.brain), {
      env: io.env,
      dataDir: ironclawHome(io.env),
      remoteEmbedder: OpenAiEmbedder.create,
      logger: createLogger("memory", { level: io.env.IRONCLAW_LOG ?? "warn" }),
    });
    db = AgentDatabase.open(memory.brain.databaseFile);
    const changes = new MemoryChangeLog(db, new DayLog(memory.brain.root));
    const report = await forgetMemory(
      { memory, db, changes },
      { target: options.target, apply: options.yes, actor: "cli", at: new Date() },
    );
    printReport(report, options, io);
    return report.places.length > 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof InvalidInputError)
      throw new UsageError(`${error.path === "target" ? "<target>" : error.path}: ${error.rule}`, {
        showUsage: false,
      });
    if (!(error instanceof IronclawError)) throw error;
    println(io.stderr, `memory forget: ${error.message}`);
    return 1;
  } finally {
    db?.close();
    await memory?.close();
  }
}

type Report = Awaited<ReturnType<typeof forgetMemory>>;

function printReport(report: Report, options: MemoryForgetOptions, io: CliIo): void {
  if (options.json) {
    const places = report.places.map((p, i) => ({
      path: p.path,
      headings: p.headings,
      start_line: p.startLine,
      end_line: p.endLine,
      hash: p.hash,
      // The text only in a preview, for the person deciding; once forgotten it is nowhere, not even here.
      ...(report.applied ? {} : { text: report.previews[i] ?? "" }),
    }));
    const out = {
      applied: report.applied,
      places,
      skipped: report.skipped,
      ...(report.purgeMs === undefined ? {} : { purge_ms: report.purgeMs }),
      ...(report.purgeError === undefined ? {} : { purge_error: report.purgeError }),
    };
    println(io.stdout, JSON.stringify(out, null, 2));
    return;
  }
  if (report.places.length === 0) {
    println(io.stdout, "Nothing in the brain matches; nothing was forgotten.");
    return;
  }
  const where = (p: Report["places"][number]) =>
    `${[p.path, ...p.headings].join(" › ")} (lines ${p.startLine}-${p.endLine})`;
  if (!report.applied) {
    println(
      io.stdout,
      `Would forget ${report.places.length} passage(s); run again with --yes to remove them:`,
    );
    report.places.forEach((p, i) => {
      println(io.stdout, `  ${where(p)}`);
      for (const line of (report.previews[i] ?? "").split("\n")) println(io.stdout, `    │ ${line}`);
    });
    return;
  }
  println(io.stdout, `Forgot ${report.places.length} passage(s):`);
  for (const p of report.places) println(io.stdout, `  ${where(p)}  ${p.hash}`);
  println(
    io.stdout,
    report.purgeError === undefined
      ? `Removed from the files and the index; the database was rebuilt without them (${report.purgeMs ?? 0} ms). ` +
          "The brain's audit records where, by hash."
      : "Removed from the files and the index. The database could not be rebuilt now " +
          `(${report.purgeError}); run the forget again to purge its free space. The brain's audit records where, by hash.`,
  );
  for (const s of report.skipped) println(io.stderr, `skipped ${s.path}: ${s.reason}`);
}
