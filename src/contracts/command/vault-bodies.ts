import { z } from "zod";
import { jsonObject, oneOf, pathSafeId } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { defineResponseContract } from "./envelope.js";
import { absolutePath, flag, gitBranch, text } from "./fields.js";
import { orderFileSchema } from "./order-file.js";

/**
 * POST /theaters (seed 000 §3.4 `{ "theater_id": "demo", "repo_path": "/.../theaters/demo/repo" }`): create the
 * theater's repository, or open it when it exists. The seed's path is absolute.
 */
export const theaterCreateRequestSchema = z.looseObject({
  theater_id: pathSafeId,
  repo_path: absolutePath,
});

/** IronClaw's answer (the seed prints none): created tells a fresh repository from an opened one. */
export const theaterCreateDataSchema = z.looseObject({
  theater_id: pathSafeId,
  repo_path: absolutePath,
  created: flag,
});

/** POST /worktrees (§3.4 `{ "theater_id", "order_id", "branch": "order_01J..." }`): one worktree per order. */
export const worktreeCreateRequestSchema = z.looseObject({
  theater_id: pathSafeId,
  order_id: pathSafeId,
  branch: gitBranch,
});

/** §3.4's response: `{ "worktree_path": "/.../theaters/demo/worktrees/order_01J...", "branch" }`. */
export const worktreeCreateDataSchema = z.looseObject({
  worktree_path: absolutePath,
  branch: gitBranch,
});

/**
 * POST /worktrees/{order_id}/prepare (§3.4 "Write order.json, task.md, state.json (optional). Request:
 * { "order": { ... } }"): the vault writes order.json from `order`, and task.md and state.json when given.
 * task_md is markdown text; state is the worker's free-form starting state.
 */
export const worktreePrepareRequestSchema = z.looseObject({
  order: orderFileSchema,
  task_md: text.optional(),
  state: jsonObject.optional(),
});

/**
 * §3.4 "Archives completed worktree (zip, move, tag) per policy": zip packs the worktree into an archive, move
 * relocates it, tag tags its head before removal.
 */
export const ARCHIVE_POLICIES = ["zip", "move", "tag"] as const;

/** POST /worktrees/{order_id}/archive. Without a policy the vault applies its configured default. */
export const worktreeArchiveRequestSchema = z.looseObject({
  policy: z.enum(ARCHIVE_POLICIES, { error: oneOf(ARCHIVE_POLICIES) }).optional(),
});

export type TheaterCreateRequest = z.input<typeof theaterCreateRequestSchema>;
export type TheaterCreateData = z.output<typeof theaterCreateDataSchema>;
export type WorktreeCreateRequest = z.input<typeof worktreeCreateRequestSchema>;
export type WorktreeCreateData = z.output<typeof worktreeCreateDataSchema>;
export type WorktreePrepareRequest = z.input<typeof worktreePrepareRequestSchema>;
export type WorktreeArchiveRequest = z.input<typeof worktreeArchiveRequestSchema>;

const request = <S extends z.ZodType>(kind: string, title: string, description: string, schema: S) =>
  defineContract({ kind, seed: "000", title, description, format: "json", schema });

export const vaultContracts: Contract[] = [
  request(
    "theater-create-request",
    "Theater create request (POST /theaters)",
    "Create or open a theater's git repository at an absolute path.",
    theaterCreateRequestSchema,
  ),
  defineResponseContract({
    kind: "theater-create-response",
    title: "Theater create response (POST /theaters)",
    description: "The theater's repository path and whether it was created or opened.",
    data: theaterCreateDataSchema,
  }),
  request(
    "worktree-create-request",
    "Worktree create request (POST /worktrees)",
    "Create a git worktree for an order on the given branch.",
    worktreeCreateRequestSchema,
  ),
  defineResponseContract({
    kind: "worktree-create-response",
    title: "Worktree create response (POST /worktrees)",
    description: "The new worktree's absolute path and branch.",
    data: worktreeCreateDataSchema,
  }),
  request(
    "worktree-prepare-request",
    "Worktree prepare request (POST /worktrees/{order_id}/prepare)",
    "The order to write as order.json, with optional task.md text and state.json object.",
    worktreePrepareRequestSchema,
  ),
  request(
    "worktree-archive-request",
    "Worktree archive request (POST /worktrees/{order_id}/archive)",
    "Archive a completed worktree by policy zip, move or tag; omitted means the vault's default.",
    worktreeArchiveRequestSchema,
  ),
];
