import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { allContracts, findContract, toJsonSchema } from "../../contracts/index.js";
import { type CliCommand, println, UsageError } from "../command.js";

const usage = `Usage: ironclaw schema export <dir>
       ironclaw schema show <kind>

export  writes <dir>/<kind>.schema.json for every contract, and <dir>/index.json listing them
show    prints one contract's JSON Schema`;

export const schemaCommand: CliCommand = {
  name: "schema",
  summary: "export the JSON Schema of every contract",
  usage,
  async run(argv, io) {
    const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
    const [action, arg] = positionals;
    if (action === "export") {
      if (arg === undefined) throw new UsageError("missing <dir>");
      const dir = resolve(io.cwd, arg);
      await mkdir(dir, { recursive: true });
      const index = [];
      for (const contract of allContracts) {
        const file = `${contract.kind}.schema.json`;
        await writeFile(join(dir, file), `${JSON.stringify(toJsonSchema(contract), null, 2)}\n`);
        index.push({
          kind: contract.kind,
          seed: contract.seed,
          format: contract.format,
          title: contract.title,
          file,
        });
      }
      await writeFile(join(dir, "index.json"), `${JSON.stringify(index, null, 2)}\n`);
      println(io.stdout, `wrote ${allContracts.length} schemas to ${dir}`);
      return 0;
    }
    if (action === "show") {
      if (arg === undefined) throw new UsageError("missing <kind>");
      const contract = findContract(arg);
      if (!contract)
        throw new UsageError(`unknown kind '${arg}'; run 'ironclaw validate --list' for the kinds`);
      println(io.stdout, JSON.stringify(toJsonSchema(contract), null, 2));
      return 0;
    }
    throw new UsageError(action === undefined ? "missing action" : `unknown action '${action}'`);
  },
};
