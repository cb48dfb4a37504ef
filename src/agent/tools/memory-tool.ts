import { z } from "zod";
import type { BrainMemory } from "../../memory/index.js";
import { defineTool, ok } from "./tool-definition.js";

const memoryArgs = z
  .strictObject({
    action: z.enum(["remember", "recall"]),
    text: z.string().min(1).optional().describe("remember: what to keep, in markdown"),
    target: z
      .enum(["log", "memory"])
      .optional()
      .describe("remember: log = today's log (default), memory = memory.md for durable facts"),
    title: z.string().min(1).max(120).optional().describe("remember: a heading for the entry"),
    query: z.string().min(1).optional().describe("recall: what to search the brain for"),
    top_k: z.number().int().min(1).max(50).optional().describe("recall: how many passages"),
  })
  .superRefine((a, ctx) => {
    if (a.action === "remember" && a.text === undefined) {
      ctx.addIssue({ code: "custom", path: ["text"], message: "is required for remember" });
    }
    if (a.action === "recall" && a.query === undefined) {
      ctx.addIssue({ code: "custom", path: ["query"], message: "is required for recall" });
    }
  });

/** memorytool (seed 003 §8.1): remember appends to the brain's markdown and queues indexing; recall searches. */
export function createMemoryTool(
  memory: Pick<BrainMemory, "remember" | "recall">,
  defaults: { topK?: number } = {},
) {
  return defineTool({
    name: "memory",
    description:
      "remember: append text to today's log or to memory.md (durable facts). recall: hybrid search over the " +
      "brain's markdown, returning passages with their file and headings.",
    parameters: memoryArgs,
    async execute(args, { signal }) {
      if (args.action === "remember") {
        const saved = await memory.remember(args.text ?? "", {
          ...(args.target ? { target: args.target } : {}),
          ...(args.title ? { title: args.title } : {}),
        });
        return ok(`remembered in ${saved.path} (lines ${saved.startLine}-${saved.endLine})`, { ...saved });
      }
      const topK = args.top_k ?? defaults.topK;
      const hits = await memory.recall(args.query ?? "", { signal, ...(topK ? { topK } : {}) });
      if (hits.length === 0) return ok("nothing in the brain matches that");
      const text = hits
        .map(
          (h, i) =>
            `[${i + 1}] ${[h.path, ...h.headings].join(" › ")} (score ${h.score.toFixed(2)})\n${h.text.trim()}`,
        )
        .join("\n\n");
      return ok(text, { paths: hits.map((h) => h.path) });
    },
  });
}
