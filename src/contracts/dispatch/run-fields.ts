import { z } from "zod";
import { fieldRule } from "../common.js";

/** Field rules shared by a dispatch and the completion block that answers it (seed 001 "Field Rules"). */

/** Seed 001: "`run_id` | required, max 64 chars, no whitespace". */
export const RUN_ID_MAX_LENGTH = 64;

export const runIdSchema = z
  .string(fieldRule("must be a string"))
  .min(1, "must not be empty")
  .max(RUN_ID_MAX_LENGTH, `must be at most ${RUN_ID_MAX_LENGTH} characters`)
  // `\S*` rather than `\S+` so that an empty id reports only "must not be empty".
  .regex(/^\S*$/, "must not contain whitespace");

/**
 * Seed 001: "`branch` | required and must match `jarvis-<feature>`". The seed puts no rule on the feature, so it
 * is anything that keeps the whole name a git branch (`git check-ref-format --branch`): no `..`, `//` or `@{`,
 * no component starting with `.` or ending in `.lock`, no trailing `/` or `.`, and none of space, control
 * characters, `~ ^ : ? * [ \`.
 */
export const JARVIS_BRANCH =
  /^jarvis-(?!.*(?:\.\.|\/\/|@\{|\/\.|\.lock(?:\/|$)))[^\s\p{Cc}~^:?*[\\]+(?<![/.])$/u;

export const jarvisBranchSchema = z
  .string(fieldRule("must be a string"))
  .regex(JARVIS_BRANCH, "must match jarvis-<feature> and be a valid git branch name");

/**
 * The fields a completion block can carry (seed 001 "Completion Requirements" and "`pr_skipped_reason` may be
 * used instead of `pr_url`"); `output_contract.required_fields` names them.
 */
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
