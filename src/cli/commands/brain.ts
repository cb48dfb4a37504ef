import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { initBrain } from "../../memory/index.js";
import { type CliCommand, println, UsageError } from "../command.js";

const usage = `Usage: ironclaw brain init <dir> [--agent <name>]

Creates a brain (seed 003 §5.1): soul.md, identity.md, instructions/, memory.md, logs/, cron/jobs.toml,
config/irowclaw.toml, config/agents/<name>.toml and db/. Existing files are left untouched, so running it on
a brain only adds what is missing.

Options:
  --agent <name>  the default agent's name (default: assistant)`;

export const brainCommand: CliCommand = {
  name: "brain",
  summary: "create a brain directory with starter files",
  usage,
  async run(argv, io) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(argv);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const [action, dir, ...extra] = parsed.positionals;
    if (action !== "init")
      throw new UsageError(action === undefined ? "missing action" : `unknown action '${action}'`);
    if (dir === undefined) throw new UsageError("missing <dir>");
    if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const result = await initBrain(
      resolve(io.cwd, dir),
      parsed.values.agent ? { agentName: parsed.values.agent } : {},
    );
    for (const path of result.created) println(io.stdout, `created ${path}`);
    for (const path of result.kept) println(io.stdout, `kept    ${path} (already there)`);
    println(io.stdout, `brain ready at ${result.brain.root}`);
    return 0;
  },
};

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: { agent: { type: "string" } }, allowPositionals: true });
}
