import type { Readable } from "node:stream";
import { parseArgs } from "node:util";
import {
  allContracts,
  checkText,
  dispatchContract,
  evaluateCompletion,
  findContract,
} from "../../contracts/index.js";
import type { Issue } from "../../core/index.js";
import { type CliCommand, println, UsageError } from "../command.js";
import { readInput } from "../read-input.js";

const usage = `Usage: ironclaw validate <kind> <file|-> [file…] [--json]
       ironclaw validate completion <worker-output> --dispatch <dispatch.json>
       ironclaw validate --list

Validates contract files (JSON, TOML or text, by kind) and prints every problem with its JSON path.
Exit code 0 when every input is valid, 1 when any is not, 2 on usage errors.

Options:
  --json             print one JSON result per input: { "file", "valid", "issues": [{ "path", "message", "code" }] }
  --list             list the contract kinds
  --dispatch <file>  for completion: apply the seed 001 gates against this dispatch (its required_fields and
                     run_id) and print the resulting status, review_requested or failed_contract`;

export const validateCommand: CliCommand = {
  name: "validate",
  summary: "check a contract file against its schema (ironclaw validate --list for kinds)",
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { json: { type: "boolean" }, list: { type: "boolean" }, dispatch: { type: "string" } },
      allowPositionals: true,
    });
    if (values.list) {
      for (const c of allContracts)
        println(io.stdout, `${c.kind.padEnd(28)} seed ${c.seed}  ${c.format.padEnd(4)}  ${c.title}`);
      return 0;
    }
    const [kind, ...sources] = positionals;
    if (kind === undefined) throw new UsageError("missing <kind>");
    const contract = findContract(kind);
    if (!contract)
      throw new UsageError(`unknown kind '${kind}'; run 'ironclaw validate --list' for the kinds`);
    if (sources.length === 0) throw new UsageError("missing <file|->");
    if (values.dispatch !== undefined && kind !== "completion")
      throw new UsageError("--dispatch only applies to completion");
    const gate = values.dispatch === undefined ? undefined : await loadDispatch(values.dispatch, io.stdin);

    let failures = 0;
    for (const source of sources) {
      let issues: Issue[];
      try {
        const text = await readInput(source, io.stdin);
        if (gate) {
          const verdict = evaluateCompletion(gate, text);
          issues = verdict.status === "review_requested" ? [] : verdict.issues;
          if (!values.json) println(io.stdout, `${source === "-" ? "<stdin>" : source}: ${verdict.status}`);
        } else {
          const result = checkText(contract, text);
          issues = result.ok ? [] : result.issues;
        }
      } catch (cause) {
        issues = [
          { path: "$", code: "unreadable", message: `cannot read ${source}: ${(cause as Error).message}` },
        ];
      }
      if (issues.length > 0) failures++;
      report(io.stdout, source, issues, { json: values.json === true, many: sources.length > 1 });
    }
    return failures === 0 ? 0 : 1;
  },
};

/** The dispatch a completion is gated against; a bad dispatch is a usage problem, reported with its paths. */
async function loadDispatch(file: string, stdin: Readable) {
  const result = checkText(dispatchContract, await readInput(file, stdin));
  if (!result.ok) {
    const problems = result.issues.map((i) => `  ${i.path}: ${i.message}`).join("\n");
    throw new UsageError(`--dispatch ${file} is not a valid dispatch:\n${problems}`);
  }
  return result.value;
}

function report(
  out: NodeJS.WritableStream,
  source: string,
  issues: Issue[],
  style: { json: boolean; many: boolean },
): void {
  const file = source === "-" ? "<stdin>" : source;
  if (style.json) {
    out.write(`${JSON.stringify({ file, valid: issues.length === 0, issues })}\n`);
    return;
  }
  const prefix = style.many ? `${file}: ` : "";
  if (issues.length === 0) {
    out.write(`${prefix}valid\n`);
    return;
  }
  out.write(`${prefix}invalid (${issues.length} problem${issues.length === 1 ? "" : "s"})\n`);
  for (const issue of issues) out.write(`  ${issue.path}: ${issue.message}\n`);
}
