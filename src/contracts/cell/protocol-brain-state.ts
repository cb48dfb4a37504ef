import { z } from "zod";
import { aNumber, pattern } from "../common.js";
import { brainPath } from "./brain-path.js";

// A brain the host cannot read (a disk image only its cell mounts) is recorded in the brain's history from what
// its cell reports: the warden asks for the brain's state, compares each file's hash with the history's newest
// node, and reads only the files that differ (FileOpRequest read). Hashing and signing stay on the host.

/** More markdown files than a brain plausibly holds, and few enough that the answer fits one frame (8 MiB). */
export const MAX_BRAIN_STATE_FILES = 20_000;

const sha256Hex = pattern(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters (a sha256)");

/** Warden → inmate (as a QueryRequest): the brain's markdown tree by hash, and its database's snapshot hash. */
export const brainStateQuerySchema = z.strictObject({ kind: z.literal("brain_state") });

/** One markdown file of the brain: its path, the sha256 of its bytes and their count. */
export const brainStateFileSchema = z.strictObject({
  path: brainPath,
  sha256: sha256Hex,
  size_bytes: aNumber().int("must be an integer").min(0, "must be a non-negative integer"),
});
export type BrainStateFile = z.output<typeof brainStateFileSchema>;

/**
 * Inmate → warden: every regular `*.md` file of the brain outside `db/` and `.git`, never through a link (the
 * set the host's history keeps of a brain directory), and `sha256:<hex>` of the brain database's serialized
 * snapshot (seed 002 §1 `engine.kind: "sqlite-serialized"`), taken by the cell that owns the database.
 */
export const brainStateAnswerSchema = z.strictObject({
  kind: z.literal("brain_state"),
  files: z
    .array(brainStateFileSchema)
    .max(MAX_BRAIN_STATE_FILES, `must list at most ${MAX_BRAIN_STATE_FILES} files`),
  db_snapshot_sha256: pattern(/^sha256:[0-9a-f]{64}$/, "must be sha256: followed by 64 lowercase hex"),
});
export type BrainStateAnswer = z.output<typeof brainStateAnswerSchema>;
