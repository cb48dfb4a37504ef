import { z } from "zod";
import { PathRefusal, sha256Hex } from "../../core/index.js";
import type { BrainMemory, Correction, SearchHit } from "../../memory/index.js";
import { citeKey } from "../citations.js";
import type { MemoryChange } from "../memory-change-log.js";
import type { ForgetReport } from "../memory-forgetting.js";
import { defineTool, failed, ok, ToolRefusal } from "./tool-definition.js";

const ACTIONS = ["remember", "recall", "forget", "correct", "replace"] as const;

const memoryArgs = z
  .strictObject({
    action: z.enum(ACTIONS),
    text: z
      .string()
      .min(1)
      .optional()
      .describe("remember: what to keep, in markdown; correct/replace: the right text that replaces `old`"),
    target: z
      .enum(["log", "memory"])
      .optional()
      .describe("remember: log = today's log (default), memory = memory.md for durable facts"),
    title: z.string().min(1).max(120).optional().describe("remember: a heading for the entry"),
    query: z
      .string()
      .min(1)
      .optional()
      .describe("recall: what to search for; forget: every passage containing all these words is removed"),
    id: z
      .string()
      .regex(/^[0-9a-f]{32}$/, "must be a chunk id from a recall result")
      .optional()
      .describe("forget: the id of one recalled passage to remove"),
    old: z
      .string()
      .min(3)
      .optional()
      .describe("correct/replace: the wrong text, exactly as recall showed it"),
    path: z.string().min(1).optional().describe("correct/replace: only in this brain file"),
    top_k: z.number().int().min(1).max(50).optional().describe("recall: how many passages"),
  })
  .superRefine((a, ctx) => {
    const need = (field: "text" | "query" | "old", why: string) => {
      if (a[field] === undefined)
        ctx.addIssue({ code: "custom", path: [field], message: `is required for ${why}` });
    };
    if (a.action === "remember") need("text", "remember");
    if (a.action === "recall") need("query", "recall");
    if (a.action === "forget" && (a.query === undefined) === (a.id === undefined))
      ctx.addIssue({ code: "custom", path: ["query"], message: "forget needs exactly one of query and id" });
    if (a.action === "correct" || a.action === "replace") {
      need("old", a.action);
      need("text", a.action);
    }
  });

type MemoryArgs = z.output<typeof memoryArgs>;

/** What the memory tool does, given as operations so it runs on a runtime, in a cell, or in a test. */
export interface MemoryToolOperations {
  remember: BrainMemory["remember"];
  recall: BrainMemory["recall"];
  forget?(target: string, scope: { sessionId: string }): Promise<ForgetReport>;
  correct?(correction: Correction, scope: { sessionId: string }): Promise<MemoryChange[]>;
  /** Passages handed to the model, so those its answer cites can be counted (promotion). */
  onRecalled?(sessionId: string, hits: readonly SearchHit[]): void;
}

/**
 * memorytool (seed 003 §8.1): remember appends to the brain's markdown and queues indexing; recall searches and
 * gives each passage its id and the key to cite it by; forget removes passages from the markdown for good;
 * correct (or replace) rewrites a wrong fact where it stands instead of appending a contradiction.
 */
export function createMemoryTool(ops: MemoryToolOperations, defaults: { topK?: number } = {}) {
  return defineTool({
    name: "memory",
    description:
      "remember: append text to today's log or to memory.md (durable facts). recall: hybrid search over the " +
      "brain's markdown and past conversations (sessions/), returning passages with id, file and headings; cite " +
      "what you use as [path#heading]. forget: remove every passage containing all words of `query`, or the " +
      "passage `id`, when the user asks you to forget something. correct/replace: when the user says a stored " +
      "fact is wrong, replace `old` (the wrong text as recalled) with `text` where it stands.",
    parameters: memoryArgs,
    async execute(args, { signal, sessionId }) {
      if (args.action === "remember") {
        // The brain file is reached without following a link; one planted on the way is a refusal.
        const saved = await ops
          .remember(args.text ?? "", {
            ...(args.target ? { target: args.target } : {}),
            ...(args.title ? { title: args.title } : {}),
          })
          .catch((error: unknown) => {
            if (error instanceof PathRefusal) throw new ToolRefusal(error.message, { cause: error });
            throw error;
          });
        return ok(`remembered in ${saved.path} (lines ${saved.startLine}-${saved.endLine})`, { ...saved });
      }
      if (args.action === "forget") return forget(ops, args, sessionId);
      if (args.action === "correct" || args.action === "replace") {
        if (!ops.correct) return failed("correcting memory is not available here");
        const places = await ops.correct(
          { old: args.old ?? "", text: args.text ?? "", ...(args.path ? { path: args.path } : {}) },
          { sessionId },
        );
        return ok(`corrected ${places.length} place(s): ${describe(places)}`, { places: places.length });
      }
      const topK = args.top_k ?? defaults.topK;
      const hits = await ops.recall(args.query ?? "", { signal, ...(topK ? { topK } : {}) });
      if (hits.length === 0) return ok("nothing in the brain matches that");
      ops.onRecalled?.(sessionId, hits);
      const text = hits
        .map(
          (h, i) =>
            `[${i + 1}] ${citeKey(h)} id ${h.id}, ${[h.path, ...h.headings].join(" › ")} ` +
            `(score ${h.score.toFixed(2)})\n${h.text.trim()}`,
        )
        .join("\n\n");
      return ok(`Cite what you use as [path#heading].\n\n${text}`, {
        paths: hits.map((h) => h.path),
        ids: hits.map((h) => h.id),
      });
    },
  });
}

async function forget(ops: MemoryToolOperations, args: MemoryArgs, sessionId: string) {
  const target = args.id ?? args.query ?? "";
  // The query itself is what is being forgotten: the audit trail keeps its hash, not its words.
  const auditArgs = JSON.stringify({ action: "forget", target_sha256: sha256Hex(target) });
  if (!ops.forget) return { ...failed("forgetting is not available here"), auditArgs };
  const report = await ops.forget(target, { sessionId });
  if (report.places.length === 0)
    return { ...ok("nothing in the brain matched; nothing was removed"), auditArgs };
  return {
    ...ok(
      `forgot ${report.places.length} passage(s), removed from the files and the index: ${describe(report.places)}`,
    ),
    auditArgs,
  };
}

function describe(places: readonly MemoryChange[]): string {
  return places.map((p) => `${p.path} (lines ${p.startLine}-${p.endLine})`).join(", ");
}
