import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import { brainPath } from "./brain-path.js";
import { protocolHeader } from "./protocol-header.js";

// Forgetting across the cell's boundary (seed 003 §5: the brain is the user's, and what they ask to forget must
// be gone from every copy): the warden's question, the cell's report, and the notice that lets the warden drop
// the text from its own record of the conversations.

const count = aNumber().int("must be an integer").min(0, "must be a non-negative integer");
const MAX_PASSAGES = 10_000;

/** A query (every passage holding all its words) or a chunk id from a search hit, as `forget` takes it. */
export const forgetTarget = aString()
  .min(1, "must not be empty: give a query or a chunk id")
  .max(2000, "must be at most 2000 characters");

/**
 * What copies of forgotten text must lose, as data: every unit with all words of `query`, or every unit quoting
 * one of `passages` (when one chunk was forgotten by its id).
 */
export const forgetScopeSchema = z.union(
  [
    z.strictObject({ query: forgetTarget }),
    z.strictObject({
      passages: z
        .array(aString().min(1, "must not be empty"))
        .max(MAX_PASSAGES, `must have at most ${MAX_PASSAGES} passages`),
    }),
  ],
  { error: () => "must be { query } or { passages }" },
);
export type ForgetScopeData = z.output<typeof forgetScopeSchema>;

/** Warden → inmate (a QueryRequest's query): forget `target`, or with `apply: false` only say what would go. */
export const memoryForgetQuerySchema = z.strictObject({
  kind: z.literal("memory_forget"),
  target: forgetTarget,
  apply: aBoolean(),
});

/** One removed run of lines, described without its text: where it was and the sha256 of what it said. */
export const forgottenPlaceSchema = z.strictObject({
  path: brainPath,
  headings: z.array(aString()),
  start_line: count,
  end_line: count,
  hash: aString(),
});
export type ForgottenPlace = z.output<typeof forgottenPlaceSchema>;

export const memoryForgetAnswerSchema = z.strictObject({
  kind: z.literal("memory_forget"),
  applied: aBoolean(),
  places: z.array(forgottenPlaceSchema),
  /** The text of each place, only in a preview (`apply: false`): once forgotten it is nowhere, not even here. */
  previews: z.array(aString()).optional(),
  /** Files that could not be read (too large, not plain text): nothing in them was looked at. */
  skipped: z.array(z.strictObject({ path: aString(), reason: aString() })),
  purge_ms: count.optional(),
  purge_error: aString().optional(),
});
export type MemoryForgetAnswer = z.output<typeof memoryForgetAnswerSchema>;

/**
 * Inmate → warden, unasked: the brain forgot something (the agent's memory tool, a job, the owner). Sent before
 * the turn or query that did it ends, so the warden's record of the conversations loses the text first.
 */
export const memoryForgottenSchema = z.strictObject({
  type: z.literal("MemoryForgotten"),
  ...protocolHeader,
  scope: forgetScopeSchema,
  places: count,
});
export type MemoryForgotten = z.output<typeof memoryForgottenSchema>;
