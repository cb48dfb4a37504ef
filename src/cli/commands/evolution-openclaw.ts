import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { canonicalJson, InvalidInputError } from "../../core/index.js";
import {
  buildPayloadReport,
  defaultStateDir,
  importOpenclawFile,
  renderRuntimeSessionMarkdown,
  writeRuntimeSessionReport,
} from "../../evolution/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, jsonOption } from "../command-spec.js";
import { stateOption } from "./evolution-store.js";

function stateDir(state: string | undefined, io: CliIo): string {
  return state === undefined ? defaultStateDir(io.env) : resolve(io.cwd, state);
}

async function readInput(file: string, io: CliIo): Promise<Buffer> {
  return readFile(resolve(io.cwd, file)).catch((cause: NodeJS.ErrnoException) => {
    throw new InvalidInputError("file", `cannot read ${file}: ${cause.code ?? cause.message}`, { cause });
  });
}

export const evolutionOpenclawImport = defineCommand({
  name: "openclaw-import",
  summary: "import an OpenClaw operator-session artifact, or replay an exported handoff bundle",
  description: `An openclaw_operator_session artifact becomes one session_started envelope carrying its checkpoints as steps,
and one session_feedback when it has a terminal outcome; ids come from its content, so importing it again stores
nothing new and rewrites the same reports. A handoff bundle (reports/openclaw_operator_handoff_bundle_<session>.json
or the latest_ alias) is replayed: its envelopes are stored with their ids, those already stored are skipped.
Either way reports/ gets the import report, the runtime session report (json, md), the handoff, the bundle and
the latest_* aliases. A bad file is refused, each problem naming its field, and nothing is written (exit 1).`,
  options: [
    {
      name: "file",
      type: "string",
      required: true,
      valueName: "file",
      description: "the artifact or bundle",
    },
    stateOption,
    jsonOption("the result"),
  ],
  async run({ options }, io) {
    const result = importOpenclawFile(stateDir(options.state, io), await readInput(options.file, io));
    if (options.json) {
      println(io.stdout, JSON.stringify(result));
      return 0;
    }
    const verb = result.input === "handoff_bundle" ? "replayed bundle of" : "imported";
    println(
      io.stdout,
      `${verb} session ${result.session_id}: ${result.ingest.stored} stored, ${result.ingest.skipped} skipped as duplicates, ${result.record_ids.length} projected`,
    );
    for (const id of result.unreproduced_record_ids)
      println(io.stdout, `  record ${id} of the bundle was not reproduced`);
    for (const path of Object.values(result.reports)) println(io.stdout, `wrote ${path}`);
    return 0;
  },
});

export const evolutionReport = defineCommand({
  name: "report",
  summary: "one session's evidence report from runtime event payloads or a handoff bundle",
  description: `Builds the runtime session report — raw outcome, selected skills, missing capabilities, handoff state, projected
evolution signals and promotion-risk notes — from one or more files (--file again for each), each a single
envelope, a list, a batch or a handoff bundle. Deterministic, no model; nothing is stored. --write-report also
writes it under the state directory's reports/.`,
  options: [
    {
      name: "file",
      type: "list",
      required: true,
      valueName: "file",
      description: "a payload or handoff bundle",
    },
    {
      name: "format",
      type: "string",
      choices: ["json", "md"],
      default: "json",
      description: "the output format",
    },
    {
      name: "session",
      type: "string",
      valueName: "id",
      description: "the session to report when the files hold several",
    },
    {
      name: "write-report",
      type: "boolean",
      description: "also write reports/runtime_session_report_<session>.<format>",
    },
    stateOption,
  ],
  async run({ options }, io) {
    const files = await Promise.all(options.file.map((file) => readInput(file, io)));
    const report = buildPayloadReport(files, options.session);
    const format = options.format === "md" ? "md" : "json";
    println(
      io.stdout,
      format === "md" ? renderRuntimeSessionMarkdown(report).trimEnd() : canonicalJson(report),
    );
    if (options["write-report"])
      for (const path of writeRuntimeSessionReport(stateDir(options.state, io), report, format))
        println(io.stderr, `wrote ${path}`);
    return 0;
  },
});
