import { z } from "zod";
import { fieldRule, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { ratchetStepField, recordOf, rfc3339Field } from "./formats.js";

/** A reference to a capability envelope; the seed says "envelope ref" and gives it no form. */
const envelopeRef = z.string(fieldRule("must be a string")).min(1, "must not be empty");

/**
 * `next_tokens.json` (seed 002 §3): "`state_cap_next` envelope ref", "`net_cap_next` envelope ref", "ratchet
 * step metadata"; "these capability tokens are required to decrypt/ratchet the next checkpoint in multi-step
 * GitHub flows". The two named refs are required; the ratchet metadata has no keys in the seed, so IronClaw's
 * (`ratchet.current_step`, `ratchet.next_step`) are typed when present, and a ratchet only turns forward.
 * Only references: the tokens themselves never appear in this file.
 */
export const nextTokensSchema = z
  .looseObject(
    {
      schema_version: z.string(fieldRule("must be a string")).min(1, "must not be empty").optional(),
      /** The node whose state the next step continues. */
      node_id: uuid.optional(),
      state_cap_next: envelopeRef,
      net_cap_next: envelopeRef,
      ratchet: z
        .looseObject(
          { current_step: ratchetStepField.optional(), next_step: ratchetStepField.optional() },
          recordOf("ratchet"),
        )
        .optional(),
      expires_at: rfc3339Field.nullish(),
    },
    recordOf("next_tokens.json"),
  )
  .superRefine((tokens, ctx) => {
    const { current_step, next_step } = tokens.ratchet ?? {};
    if (current_step !== undefined && next_step !== undefined && next_step <= current_step) {
      ctx.addIssue({
        code: "custom",
        path: ["ratchet", "next_step"],
        message: "must be greater than current_step: a ratchet only turns forward",
      });
    }
  });

export type NextTokens = z.output<typeof nextTokensSchema>;

export const nextTokensContract = defineContract({
  kind: "next-tokens",
  seed: "002",
  title: "Backend next_tokens.json",
  description:
    "References to the state and network capability envelopes for the next checkpoint, with optional " +
    "ratchet step metadata.",
  format: "json",
  schema: nextTokensSchema,
});
