import { resolve } from "node:path";
import { createLogger, ironclawHome } from "../../core/index.js";
import { BrainMemory, buildWordTableFile, type IndexProgress, wordTableFile } from "../../memory/index.js";
import { OpenAiEmbedder } from "../../providers/index.js";
import { type CliIo, println, UsageError } from "../command.js";
import { type CommandNode, defineCommand, defineGroup, jsonOption } from "../command-spec.js";
import { printHit, printReport, printStatus, progressReporter } from "../memory-report.js";
import { runMemoryForget } from "./memory-forget.js";

const BRAIN = {
  name: "brain",
  type: "string",
  required: true,
  valueName: "dir",
  description: "the brain directory (soul.md, memory.md, logs/, db/ironclaw.db …)",
} as const;
const AGENT = {
  name: "agent",
  type: "string",
  valueName: "name",
  description: "whose [retrieval] settings apply (default: default_agent of config/irowclaw.toml)",
} as const;
const JSON_OUTPUT = jsonOption("the result");
const QUIET = { name: "quiet", type: "boolean", description: "no progress on stderr" } as const;

/** `index` and `reindex`: one pass over the markdown, with progress on stderr unless --quiet. */
function indexCommand(name: "index" | "reindex", summary: string) {
  return defineCommand({
    name,
    summary,
    options: [BRAIN, AGENT, JSON_OUTPUT, QUIET],
    async run({ options }, io) {
      return withMemory(options, io, async (memory) => {
        const progress = options.quiet ? undefined : progressReporter(io.stderr);
        const pass = { onProgress: (p: IndexProgress) => progress?.update(p) };
        const report = name === "index" ? await memory.index(pass) : await memory.reindex(pass);
        progress?.done();
        printReport(report, options.json, io);
        return 0;
      });
    },
  });
}

const search = defineCommand({
  name: "search",
  summary: "hybrid retrieval: 0.7 × semantic + 0.3 × lexical by default, or the agent profile's weights",
  positionals: [
    { name: "query", required: true, variadic: true, description: "what to look for (words are joined)" },
  ],
  options: [
    BRAIN,
    AGENT,
    {
      name: "top-k",
      type: "number",
      integer: true,
      min: 1,
      max: 100,
      valueName: "n",
      description: "number of results",
    },
    {
      name: "mode",
      type: "string",
      choices: ["hybrid", "lexical", "semantic"],
      default: "hybrid",
      description: "hybrid, lexical (FTS5 bm25 only) or semantic (vectors only)",
    },
    JSON_OUTPUT,
  ],
  async run({ options, args }, io) {
    const query = args.query.join(" ");
    if (query.trim() === "") throw new UsageError("missing <query>");
    return withMemory(options, io, async (memory) => {
      const started = performance.now();
      const hits = await memory.search(query, {
        mode: options.mode,
        ...(options["top-k"] === undefined ? {} : { topK: options["top-k"] }),
      });
      const tookMs = Math.round((performance.now() - started) * 100) / 100;
      if (options.json) {
        println(io.stdout, JSON.stringify({ query, mode: options.mode, tookMs, results: hits }, null, 2));
        return 0;
      }
      if (hits.length === 0) println(io.stdout, "no results");
      for (const [i, hit] of hits.entries()) printHit(io.stdout, hit, i + 1);
      return 0;
    });
  },
});

const status = defineCommand({
  name: "status",
  summary: "files, chunks, embedder, vector lists and database size",
  options: [BRAIN, AGENT, JSON_OUTPUT],
  async run({ options }, io) {
    return withMemory(options, io, async (memory) => printStatus(memory, options.json, io));
  },
});

const prepare = defineCommand({
  name: "prepare",
  summary:
    "build the built-in embedder's word table under $IRONCLAW_HOME/embeddings (otherwise built on first use)",
  async run(_input, io) {
    const file = wordTableFile(ironclawHome(io.env));
    const started = performance.now();
    await buildWordTableFile(file);
    println(io.stdout, `built ${file} in ${Math.round(performance.now() - started)} ms`);
    return 0;
  },
});

const forget = defineCommand({
  name: "forget",
  summary: "show what a query or chunk id matches in the brain's markdown; with --yes remove it for good",
  description: `Shows what would be removed from the brain's markdown; with --yes removes it for good (files, index, the
database's free space, stored conversations and audit copies) and records where, by hash. Exit 0 when something
matched, 1 when nothing did or a chunk is gone, 2 for a usage mistake.`,
  positionals: [
    {
      name: "target",
      required: true,
      valueName: "query|chunk-id",
      description: "every passage holding all these words, or a chunk id from `memory search --json`",
    },
  ],
  options: [
    BRAIN,
    { name: "yes", type: "boolean", description: "remove what matches, instead of only showing it" },
    JSON_OUTPUT,
  ],
  async run({ options, args }, io) {
    return runMemoryForget(
      { target: args.target, brain: options.brain, yes: options.yes, json: options.json },
      io,
    );
  },
});

/** The subcommands of `ironclaw memory`, in the order its help lists them. */
export const memorySubcommands: CommandNode[] = [
  indexCommand(
    "index",
    "index what changed since the last pass (unchanged files are skipped by mtime, size and hash)",
  ),
  indexCommand(
    "reindex",
    "rebuild the index from the markdown; vectors of unchanged text come from the embedding cache",
  ),
  search,
  status,
  forget,
  prepare,
];

export const memoryCommand = defineGroup({
  name: "memory",
  summary: "index and search a brain's markdown memory (FTS5 + vector hybrid retrieval)",
  subcommands: memorySubcommands,
});

async function withMemory(
  options: { brain: string; agent?: string | undefined },
  io: CliIo,
  work: (memory: BrainMemory) => Promise<number>,
): Promise<number> {
  const memory = await BrainMemory.open(resolve(io.cwd, options.brain), {
    env: io.env,
    dataDir: ironclawHome(io.env),
    remoteEmbedder: OpenAiEmbedder.create,
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    logger: createLogger("memory", { level: io.env.IRONCLAW_LOG ?? "warn" }),
  });
  try {
    return await work(memory);
  } finally {
    await memory.close();
  }
}
