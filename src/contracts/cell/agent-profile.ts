import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import { defineContract } from "../registry.js";
import { brainMarkdownPath } from "./brain-path.js";
import { agentLimitsShape } from "./irowclaw-config.js";
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
    semantic_weight: weight.optional(),
    lexical_weight: weight.optional(),
    top_k: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(100, "must be at most 100")
      .optional(),
    // Ranking beyond seed 003 §6.3 (src/memory/retrieval-settings.ts has the defaults and why).
    fusion: z.enum(["calibrated", "rrf", "relative"], "must be one of calibrated, rrf, relative").optional(),
    decay: aBoolean().optional(),
    half_life_days: aNumber().gt(0, "must be above 0").max(36_500, "must be at most 36500").optional(),
    decay_floor: weight.optional(),
    mmr: aBoolean().optional(),
    mmr_lambda: weight.optional(),
    min_score: weight.optional(),
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
  name: agentName,
  description: aString().min(1, "must not be empty").optional(),
  // Read in order into the system prompt; when absent, the brain's soul.md and identity.md.
  persona_files: z.array(brainMarkdownPath).min(1, "must list at least one file").optional(),
  provider: providerName,
  model: aString().min(1, "must not be empty").max(200, "must be at most 200 characters"),
  // When absent the agent gets every tool irowclaw.toml allows; a list here narrows that.
  tools: z.strictObject({ allow: toolAllowList }).optional(),
  retrieval: retrievalOverridesSchema.optional(),
  // Overrides of irowclaw.toml's [agent] limits for this agent's model.
  limits: z
    .strictObject({
      max_steps: agentLimitsShape.max_steps.optional(),
      context_tokens: agentLimitsShape.context_tokens.optional(),
      reserve_tokens: agentLimitsShape.reserve_tokens.optional(),
    })
    .optional(),
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
