import { z } from "zod";
import { expected } from "../common.js";

/**
 * Local field helpers for seed 000. Zod's default type message ("expected string, received undefined") does
 * not say that a key is missing, so our own primitives say "is required" or name what they expect.
 */
export const count = z
  .number({ error: expected("a whole number") })
  .int("must be a whole number")
  .min(0, "must be 0 or more");

export const positiveInt = z
  .number({ error: expected("a whole number") })
  .int("must be a whole number")
  .min(1, "must be 1 or more");

export const flag = z.boolean({ error: expected("true or false") });

export const text = z.string({ error: expected("a string") });

/** A duration or amount that must be more than zero but need not be whole (`"budget_seconds": 60`). */
export const positiveNumber = z.number({ error: expected("a number") }).positive("must be more than 0");

const hasDotDotSegment = (p: string) => p.split("/").includes("..");

/**
 * A path or glob inside an order's worktree (`outputs/model_output.txt`, `./*`). Absolute paths and `..`
 * segments are refused because workers, tool policies and the integration gates resolve them against the
 * worktree root and must never reach outside it.
 */
export const worktreePath = z
  .string({ error: expected("a path inside the worktree") })
  .min(1, "must not be empty")
  .refine(
    (p) => !p.startsWith("/") && !p.includes("\\"),
    "must be relative to the worktree, with / separators",
  )
  .refine((p) => !hasDotDotSegment(p), "must not contain a .. segment");

/**
 * An absolute host path (worktree or repository). `..` segments are refused so that a path names one place
 * without resolution; the seed's placeholder segment `...` is an ordinary name and stays legal.
 */
export const absolutePath = z
  .string({ error: expected("an absolute path") })
  .refine((p) => p.startsWith("/"), "must be an absolute path starting with /")
  .refine((p) => !hasDotDotSegment(p), "must not contain a .. segment")
  .refine((p) => !p.includes("\0"), "must not contain a NUL character");

/**
 * A git branch name, checked against the parts of `git check-ref-format` that matter for a request body.
 * Git also forbids `..` and a trailing `.`; the seed prints placeholders such as `order_01J...`, so those two
 * rules are left to git itself, which refuses such names when the worktree is created.
 */
export const gitBranch = z
  .string({ error: expected("a git branch name") })
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .refine(
    (b) => !/[\s~^:?*[\\]|\p{Cc}/u.test(b),
    "must be a git branch name: no spaces, control characters or any of ~ ^ : ? * [ \\",
  )
  .refine((b) => !b.startsWith("-") && !b.startsWith("/"), "must not start with - or /")
  .refine((b) => !b.endsWith("/") && !b.endsWith(".lock"), "must not end with / or .lock")
  .refine((b) => !b.includes("//") && !b.includes("@{"), "must not contain // or @{");

const MIME = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[^"]*"|[\w!#$&^.+-]+))*$/;

export const mimeType = z
  .string({ error: expected("a media type") })
  .regex(MIME, "must be a media type like text/plain or application/json");
