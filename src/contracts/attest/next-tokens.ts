import { z } from "zod";
import { fieldRule, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { locatorField, ratchetStepField, recordOf, rfc3339Field } from "./formats.js";

/**
 * `next_tokens.json` (seed 002 §3): where the capability envelopes that decrypt and ratchet the next
 * checkpoint of a multi-step GitHub flow are stored, and which ratchet step they open. Only references: the
 * tokens themselves never appear in this file. Strict, as every backend artifact of ours.
 */
export const nextTokensSchema = z
  .strictObject(
    {
      schema_version: z.literal("ironclaw-next-tokens-v1", fieldRule('must be "ironclaw-next-tokens-v1"')),
      /** The node whose state the next step continues. */
      node_id: uuid,
      state_cap_next: locatorField,
      net_cap_next: locatorField,
      ratchet: z.strictObject(
        { current_step: ratchetStepField, next_step: ratchetStepField },
        recordOf("ratchet"),
      ),
      expires_at: rfc3339Field.nullable(),
    },
    recordOf("next_tokens.json"),
  )
  .superRefine((tokens, ctx) => {
    // A ratchet only moves forward: a token for the current or an earlier step would reopen spent state.
    if (tokens.ratchet.next_step <= tokens.ratchet.current_step) {
      ctx.addIssue({
        code: "custom",
        path: ["ratchet", "next_step"],
        message: "must be greater than current_step",
      });
    }
    if (tokens.state_cap_next === tokens.net_cap_next) {
      ctx.addIssue({
        code: "custom",
        path: ["net_cap_next"],
        message: "must differ from state_cap_next: the state and network capabilities are separate envelopes",
      });
    }
  });

export type NextTokens = z.output<typeof nextTokensSchema>;

export const nextTokensContract = defineContract({
  kind: "next-tokens",
  seed: "002",
  title: "Backend next_tokens.json",
  description:
    "References to the state and network capability envelopes for the next checkpoint, and the ratchet " +
    "step they open.",
  format: "json",
  schema: nextTokensSchema,
});
