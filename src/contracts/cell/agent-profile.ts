import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import { defineContract } from "../registry.js";
import { brainMarkdownPath } from "./brain-path.js";
import { AGENT_LIMIT_DESCRIPTIONS, agentLimitsShape } from "./irowclaw-config.js";
import { agentName, providerName, toolAllowList } from "./names.js";

const weight = aNumber().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1");

// The sum is only checked once both weights are in range, so one bad weight is reported once.
const inUnitRange = (w: number) => w >= 0 && w <= 1;

// Float sums such as 0.7 + 0.3 are not exactly 1.
const WEIGHT_SUM_TOLERANCE = 1e-9;

/**
 * Per-agent changes to hybrid retrieval (seed 003 §6.3, default 0.7 semantic / 0.3 lexical). The two weights
 * are one choice, so they are given together and sum to 1.
 */
export const retrievalOverridesSchema = z
  .strictObject({
    semantic_weight: weight
      .optional()
      .describe(
        "The share of a hit's score from meaning (embeddings); give lexical_weight with it, summing to 1.",
      ),
    lexical_weight: weight
      .optional()
      .describe("The share of a hit's score from the words themselves (full-text)."),
    top_k: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(100, "must be at most 100")
      .optional()
      .describe("How many passages a search returns."),
    // Ranking beyond seed 003 §6.3 (src/memory/search/retrieval-settings.ts has the defaults and why).
    fusion: z
      .enum(["calibrated", "rrf", "relative"], "must be one of calibrated, rrf, relative")
      .optional()
      .describe(
        "How the two scores become one: calibrated (weighted sum, words scored on an absolute scale), rrf " +
          "(reciprocal-rank fusion) or relative (words scored against the best candidate).",
      ),
    decay: aBoolean()
      .optional()
      .describe("Dated notes (daily logs, session transcripts) lose weight with age; undated ones never."),
    half_life_days: aNumber()
      .gt(0, "must be above 0")
      .max(36_500, "must be at most 36500")
      .optional()
      .describe("The age, in days, at which a dated note has lost half of what it can lose."),
    decay_floor: weight.optional().describe("The share of its score the oldest dated note keeps."),
    mmr: aBoolean()
      .optional()
      .describe("Maximal marginal relevance: a hit nearly identical to a better one moves down the list."),
    mmr_lambda: weight.optional().describe("1 ranks by relevance alone, 0 by novelty alone."),
    min_score: weight.optional().describe("Hits scoring below this are dropped, except exact keyword hits."),
  })
  .superRefine((r, ctx) => {
    const { semantic_weight: semantic, lexical_weight: lexical } = r;
    if (semantic === undefined && lexical !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["semantic_weight"],
        message: "is required with lexical_weight",
        input: r,
      });
    } else if (lexical === undefined && semantic !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["lexical_weight"],
        message: "is required with semantic_weight",
        input: r,
      });
    } else if (
      semantic !== undefined &&
      lexical !== undefined &&
      inUnitRange(semantic) &&
      inUnitRange(lexical)
    ) {
      if (Math.abs(semantic + lexical - 1) > WEIGHT_SUM_TOLERANCE) {
        ctx.addIssue({
          code: "custom",
          path: [],
          message: `semantic_weight and lexical_weight must sum to 1, not ${semantic + lexical}`,
          input: r,
        });
      }
    }
  });
export type RetrievalOverrides = z.output<typeof retrievalOverridesSchema>;

/**
 * `/mnt/brain/config/agents/<name>.toml` (seed 003 §10.3). Provider and model are required: each agent
 * declares its own default model and there is no automatic router (§9.3).
 */
export const agentProfileSchema = z.strictObject({
  name: agentName.meta({
    description: "The agent's name, by which default_agent and a chat choose it.",
    examples: ["assistant"],
  }),
  description: aString()
    .min(1, "must not be empty")
    .optional()
    .meta({
      description: "A line saying what this agent is for.",
      examples: ["Answers questions about my notes"],
    }),
  persona_files: z
    .array(brainMarkdownPath)
    .min(1, "must list at least one file")
    .optional()
    .meta({
      description: "Brain files read in order into the system prompt; when absent, soul.md and identity.md.",
      examples: [["soul.md", "identity.md", "personas/reviewer.md"]],
    }),
  provider: providerName.meta({
    description: "The provider of the agent's model: a name from [providers] (the warden's, in a cell).",
    examples: ["openrouter"],
  }),
  model: aString()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .meta({
      description: "The model this agent uses; there is no automatic router.",
      examples: ["openai/gpt-4o"],
    }),
  tools: z
    .strictObject({
      allow: toolAllowList.meta({
        description: "The tools this agent may use, within irowclaw.toml's [tools] allow.",
        examples: [["file", "memory"]],
      }),
    })
    .optional()
    .describe("When absent the agent gets every tool irowclaw.toml allows; a list here narrows that."),
  retrieval: retrievalOverridesSchema
    .optional()
    .describe("How this agent's memory searches rank what they find (seed 003 §6.3)."),
  limits: z
    .strictObject({
      max_steps: agentLimitsShape.max_steps.optional().describe(AGENT_LIMIT_DESCRIPTIONS.max_steps),
      context_tokens: agentLimitsShape.context_tokens
        .optional()
        .describe(AGENT_LIMIT_DESCRIPTIONS.context_tokens),
      reserve_tokens: agentLimitsShape.reserve_tokens
        .optional()
        .describe(AGENT_LIMIT_DESCRIPTIONS.reserve_tokens),
    })
    .optional()
    .describe("Overrides of irowclaw.toml's [agent] limits for this agent's model."),
});
export type AgentProfile = z.output<typeof agentProfileSchema>;
export type AgentProfileInput = z.input<typeof agentProfileSchema>;

export const agentProfileContract = defineContract({
  kind: "agent-profile",
  seed: "003",
  title: "Agent profile",
  description:
    "One agent of a brain, /mnt/brain/config/agents/*.toml: name, persona files (relative to the brain), its " +
    "own provider and model (no auto-router), [tools] allow list and [retrieval] overrides (semantic and " +
    "lexical weights in [0, 1] summing to 1, top_k, fusion, decay, half_life_days, decay_floor, mmr, " +
    "mmr_lambda, min_score).",
  format: "toml",
  schema: agentProfileSchema,
});
