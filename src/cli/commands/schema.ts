import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { allContracts, findContract, toJsonSchema } from "../../contracts/index.js";
import { println, UsageError } from "../command.js";
import { defineCommand, defineGroup } from "../command-spec.js";

const exportAll = defineCommand({
  name: "export",
  summary: "writes <dir>/<kind>.schema.json for every contract, and <dir>/index.json listing them",
  positionals: [{ name: "dir", required: true, description: "where the schemas go (created if missing)" }],
  async run({ args }, io) {
    const dir = resolve(io.cwd, args.dir);
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
  },
});

const show = defineCommand({
  name: "show",
  summary: "prints one contract's JSON Schema",
  positionals: [{ name: "kind", required: true, description: "a contract kind (ironclaw validate --list)" }],
  async run({ args }, io) {
    const contract = findContract(args.kind);
    if (!contract)
      throw new UsageError(`unknown kind '${args.kind}'; run 'ironclaw validate --list' for the kinds`);
    println(io.stdout, JSON.stringify(toJsonSchema(contract), null, 2));
    return 0;
  },
});

export const schemaCommand = defineGroup({
  name: "schema",
  summary: "export the JSON Schema of every contract",
  subcommands: [exportAll, show],
});
