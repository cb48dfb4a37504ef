import { z } from "zod";
import { fieldRule } from "../common.js";

/** Field rules shared by a dispatch and the completion block that answers it (seed 001). */

export const RUN_ID_MAX_LENGTH = 64;

export const runIdSchema = z
  .string(fieldRule("must be a string"))
  .min(1, "must not be empty")
  .max(RUN_ID_MAX_LENGTH, `must be at most ${RUN_ID_MAX_LENGTH} characters`)
  // `\S*` rather than `\S+` so that an empty id reports only "must not be empty".
  .regex(/^\S*$/, "must not contain whitespace");

/**
 * `jarvis-<feature>`. The feature is lowercase letters and digits joined by single `-`, `.`, `_` or `/`, and no
 * path component ends in `.lock`: every such name is a valid git ref (no `..`, `//`, leading or trailing
 * separator), and lowercase-only avoids two refs that collide on case-insensitive filesystems.
 */
export const JARVIS_BRANCH = /^jarvis-(?!.*\.lock(?:\/|$))[a-z0-9]+(?:[-._/][a-z0-9]+)*$/;

export const jarvisBranchSchema = z
  .string(fieldRule("must be a string"))
  .regex(
    JARVIS_BRANCH,
    "must match jarvis-<feature>: lowercase letters and digits joined by single -, ., _ or /",
  );

/** The fields a completion block can carry; `output_contract.required_fields` names a subset of them. */
export const COMPLETION_FIELDS = [
  "run_id",
  "branch",
  "commit_sha",
  "files_changed",
  "test_result",
  "risk",
  "pr_url",
  "pr_skipped_reason",
] as const;

export type CompletionField = (typeof COMPLETION_FIELDS)[number];
