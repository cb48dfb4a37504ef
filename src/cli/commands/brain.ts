import { resolve } from "node:path";
import { initBrain } from "../../memory/index.js";
import { println } from "../command.js";
import { defineCommand, defineGroup } from "../command-spec.js";
import { diffCommand, logCommand, restoreCommand, showCommand } from "./brain-history.js";
import { importBrain } from "./brain-import.js";

const init = defineCommand({
  name: "init",
  summary: "create a brain directory with starter files",
  description: `Creates a brain (seed 003 §5.1): soul.md, identity.md, instructions/, memory.md, logs/, cron/jobs.toml,
config/irowclaw.toml, config/agents/<name>.toml and db/. Existing files are left untouched, so running it on
a brain only adds what is missing.`,
  positionals: [{ name: "dir", required: true, description: "where the brain goes (created if missing)" }],
  options: [
    {
      name: "agent",
      type: "string",
      valueName: "name",
      description: "the default agent's name (default: assistant)",
    },
  ],
  async run({ options, args }, io) {
    const result = await initBrain(
      resolve(io.cwd, args.dir),
      options.agent ? { agentName: options.agent } : {},
    );
    for (const path of result.created) println(io.stdout, `created ${path}`);
    for (const path of result.kept) println(io.stdout, `kept    ${path} (already there)`);
    println(io.stdout, `brain ready at ${result.brain.root}`);
    return 0;
  },
});

export const brainCommand = defineGroup({
  name: "brain",
  summary: "create a brain; its history: log, show, diff and restore of its states",
  subcommands: [init, logCommand, showCommand, diffCommand, restoreCommand, importBrain],
});
