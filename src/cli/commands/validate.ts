import type { Readable } from "node:stream";
import {
  allContracts,
  type Contract,
  checkText,
  decodeText,
  dispatchContract,
  evaluateCompletion,
  findContract,
  unknownKeyWarnings,
} from "../../contracts/index.js";
import type { Issue } from "../../core/index.js";
import { println, UsageError } from "../command.js";
import { defineCommand, jsonOption } from "../command-spec.js";
import { readInput } from "../read-input.js";

export const validateCommand = defineCommand({
  name: "validate",
  summary: "check a contract file against its schema (ironclaw validate --list for kinds)",
  description: `Validates contract files (JSON, TOML or text, by kind) and prints every problem with its JSON path.
Keys the seeds do not name are accepted (they are kept as written) and printed as warnings.
Exit code 0 when every input is valid, 1 when any is not, 2 on usage errors.`,
  positionals: [
    { name: "kind", required: true, description: "the contract kind (--list shows them)" },
    {
      name: "files",
      required: true,
      variadic: true,
      valueName: "file|-",
      description: "the files to check; - reads stdin",
    },
  ],
  options: [
    jsonOption(
      'one result per input, a line each:\n{ "file", "valid", "issues": [{ "path", "message", "code" }], "warnings": [ … ] }\n',
    ),
    {
      name: "strict",
      type: "boolean",
      description: "refuse keys the seeds do not name: each warning becomes a problem",
    },
    { name: "list", type: "boolean", standalone: true, description: "list the contract kinds" },
    {
      name: "dispatch",
      type: "string",
      valueName: "file",
      description:
        "for completion: apply the seed 001 gates against this dispatch (its required_fields and run_id) and print the resulting status, review_requested or failed_contract",
    },
  ],
  async run({ options, args }, io) {
    if (options.list) {
      for (const c of allContracts)
        println(io.stdout, `${c.kind.padEnd(28)} seed ${c.seed}  ${c.format.padEnd(4)}  ${c.title}`);
      return 0;
    }
    const contract = findContract(args.kind);
    if (!contract)
      throw new UsageError(`unknown kind '${args.kind}'; run 'ironclaw validate --list' for the kinds`);
    if (options.dispatch !== undefined && args.kind !== "completion")
      throw new UsageError("--dispatch only applies to completion");
    const gate = options.dispatch === undefined ? undefined : await loadDispatch(options.dispatch, io.stdin);

    const sources = args.files;
    let failures = 0;
    for (const source of sources) {
      let found: Found;
      try {
        const text = await readInput(source, io.stdin);
        if (gate) {
          const verdict = evaluateCompletion(gate, text);
          found = {
            issues: verdict.status === "review_requested" ? [] : verdict.issues,
            warnings: warningsOf(contract, text),
          };
          if (!options.json) println(io.stdout, `${source === "-" ? "<stdin>" : source}: ${verdict.status}`);
        } else {
          const result = checkText(contract, text);
          found = { issues: result.ok ? [] : result.issues, warnings: result.warnings };
        }
      } catch (cause) {
        const message = `cannot read ${source}: ${(cause as Error).message}`;
        found = { issues: [{ path: "$", code: "unreadable", message }], warnings: [] };
      }
      if (options.strict) found = { issues: [...found.issues, ...found.warnings.map(refuse)], warnings: [] };
      if (found.issues.length > 0) failures++;
      report(io.stdout, source, found, { json: options.json, many: sources.length > 1 });
    }
    return failures === 0 ? 0 : 1;
  },
});

interface Found {
  issues: Issue[];
  /** Keys no seed names: accepted, unless --strict turns them into issues. */
  warnings: Issue[];
}

/** The unknown keys of a text that decodes; a text that does not is reported by the gate itself. */
function warningsOf(contract: Contract, text: string): Issue[] {
  const decoded = decodeText(contract, text);
  return "issues" in decoded ? [] : unknownKeyWarnings(contract, decoded.value);
}

function refuse(warning: Issue): Issue {
  return {
    ...warning,
    message: "is not a field of this contract (--strict refuses keys the seeds do not name)",
  };
}

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
  { issues, warnings }: Found,
  style: { json: boolean; many: boolean },
): void {
  const file = source === "-" ? "<stdin>" : source;
  if (style.json) {
    out.write(`${JSON.stringify({ file, valid: issues.length === 0, issues, warnings })}\n`);
    return;
  }
  const prefix = style.many ? `${file}: ` : "";
  const noted = warnings.length === 0 ? "" : ` (${count(warnings.length, "warning")})`;
  if (issues.length === 0) out.write(`${prefix}valid${noted}\n`);
  else out.write(`${prefix}invalid (${count(issues.length, "problem")})${noted}\n`);
  for (const issue of issues) out.write(`  ${issue.path}: ${issue.message}\n`);
  for (const warning of warnings) out.write(`  warning ${warning.path}: ${warning.message}\n`);
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}
