import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { canonicalJson, InvalidInputError } from "../../core/index.js";
import {
  defaultStateDir,
  EvolutionStore,
  type IngestResult,
  type InspectReport,
} from "../../evolution/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, jsonOption } from "../command-spec.js";

/** `--state <dir>`: the evolution state directory, IRONCLAW_HOME/evolution unless given. */
export const stateOption = {
  name: "state",
  type: "string",
  valueName: "dir",
  description: "the evolution state directory (default: $IRONCLAW_HOME/evolution)",
} as const;

/** Opens the state directory a command was pointed at, recovering what a crashed writer left. */
export function openEvolutionStore(state: string | undefined, io: CliIo): EvolutionStore {
  return EvolutionStore.open(state === undefined ? defaultStateDir(io.env) : resolve(io.cwd, state));
}

async function readBytes(source: string, io: CliIo): Promise<Buffer> {
  if (source !== "-")
    return readFile(resolve(io.cwd, source)).catch((cause: NodeJS.ErrnoException) => {
      throw new InvalidInputError("file", `cannot read ${source}: ${cause.code ?? cause.message}`, { cause });
    });
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

export const evolutionIngest = defineCommand({
  name: "ingest",
  summary: "store runtime event envelopes (one, a list, or a batch) and project their feedback",
  description: `Reads an openclaw_appleseed.runtime_event payload — a single envelope, a JSON array of envelopes, or a batch
object with events — from a file or stdin (-). The payload's bytes are stored exactly as received, each envelope
completed (ids and times filled where omitted) and each session_feedback projected. Envelopes already stored
(same envelope_id or event_id) are skipped and listed. A payload with any problem is refused whole, each problem
naming its field, and nothing is stored (exit 1).`,
  positionals: [
    { name: "file", required: true, valueName: "file|-", description: "the payload, or - for stdin" },
  ],
  options: [stateOption, jsonOption("the result")],
  async run({ options, args }, io) {
    const bytes = await readBytes(args.file, io);
    const result = openEvolutionStore(options.state, io).ingest(bytes);
    if (options.json) println(io.stdout, JSON.stringify(result));
    else printIngest(io, result);
    return 0;
  },
});

export const evolutionInspect = defineCommand({
  name: "inspect",
  summary: "each raw envelope beside its projected feedback record, or raw evidence only",
  options: [
    stateOption,
    {
      name: "write-report",
      type: "boolean",
      description: "also write reports/latest_inspect_report.json in the state directory",
    },
    jsonOption("the report"),
  ],
  async run({ options }, io) {
    const store = openEvolutionStore(options.state, io);
    const report = store.inspect();
    if (options.json) println(io.stdout, canonicalJson(report));
    else printInspect(io, report);
    if (options["write-report"]) {
      const path = store.writeInspectReport(report);
      println(options.json ? io.stderr : io.stdout, `wrote ${path}`);
    }
    return 0;
  },
});

function printIngest(io: CliIo, result: IngestResult): void {
  println(
    io.stdout,
    `stored ${result.stored}, skipped ${result.skipped}, projected ${result.projected} ` +
      `(${result.payload_form}, sha256 ${result.payload_sha256})`,
  );
  for (const envelope of result.envelopes)
    if (envelope.outcome === "skipped")
      println(io.stdout, `  skipped ${envelope.envelope_id}: ${envelope.reason}`);
}

function printInspect(io: CliIo, report: InspectReport): void {
  const { counts } = report;
  println(
    io.stdout,
    `${counts.envelopes} envelopes: ${counts.projected} projected, ${counts.raw_evidence_only} raw evidence only` +
      (counts.not_yet_projected ? `, ${counts.not_yet_projected} not yet projected` : ""),
  );
  for (const entry of report.entries) {
    const outcome = entry.projection ? `projected ${entry.projection.record_id}` : entry.projection_status;
    println(
      io.stdout,
      `  ${entry.envelope_id}  ${entry.event_kind.padEnd(16)}  ${entry.session_id}  → ${outcome}`,
    );
  }
}
