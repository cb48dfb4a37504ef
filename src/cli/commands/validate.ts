import { parseArgs } from "node:util";
import { allContracts, checkText, findContract } from "../../contracts/index.js";
import type { Issue } from "../../core/index.js";
import { type CliCommand, println, UsageError } from "../command.js";
import { readInput } from "../read-input.js";

const usage = `Usage: ironclaw validate <kind> <file|-> [file…] [--json]
       ironclaw validate --list

Validates contract files (JSON, TOML or text, by kind) and prints every problem with its JSON path.
Exit code 0 when every input is valid, 1 when any is not, 2 on usage errors.

Options:
  --json   print one JSON result per input: { "file", "valid", "issues": [{ "path", "message", "code" }] }
  --list   list the contract kinds`;

export const validateCommand: CliCommand = {
  name: "validate",
  summary: "check a contract file against its schema (ironclaw validate --list for kinds)",
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { json: { type: "boolean" }, list: { type: "boolean" } },
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

    let failures = 0;
    for (const source of sources) {
      let issues: Issue[];
      try {
        const result = checkText(contract, await readInput(source, io.stdin));
        issues = result.ok ? [] : result.issues;
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
