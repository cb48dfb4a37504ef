import { z } from "zod";

/** Where an export puts a brain's history inside an evidence folder, beside nodes/ (which holds its nodes). */
export const HISTORY_DIR = "history";
export const HISTORY_MANIFEST_FILE = "history.json";
export const HISTORY_BUNDLE_FILE = "history.bundle";
export const HISTORY_REDACTIONS_FILE = "redactions.json";

const DIGEST = z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be sha256:<64 lowercase hex digits>");
const NODE_ID = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

/**
 * history/history.json: what an exported history holds. It restates the sha256 of exactly the bytes of
 * history.bundle (a `git bundle` of the history's repository) and of redactions.json, so `ironclaw verify`
 * catches a changed byte of either, as result.json does for a state bundle; `node_ids` are the history's nodes,
 * which the folder's nodes/ holds, and `head_node_id` the newest of them.
 */
export const historyManifestSchema = z.strictObject({
  schema_version: z.literal("ironclaw-history-v1"),
  head_node_id: NODE_ID,
  node_ids: z.array(NODE_ID).min(1),
  bundle_file: z.literal(HISTORY_BUNDLE_FILE),
  bundle_sha256: DIGEST,
  size_bytes: z.int().min(0),
  redactions_sha256: DIGEST.nullable(),
});

export type HistoryManifest = z.output<typeof historyManifestSchema>;

const COMMIT = z.string().regex(/^[0-9a-f]{40}$/, "must be a commit sha: 40 lowercase hex digits");

/** redactions.json as an import accepts it (history-redactions.ts writes it): commits and their records only. */
export const redactionsSchema = z.strictObject({
  commits: z.record(COMMIT, COMMIT),
  redacted: z.array(COMMIT),
  redactions: z.array(
    z.strictObject({
      at: z.string(),
      cause: z.string(),
      commits_rewritten: z.int().min(0),
      commits_redacted: z.int().min(0),
    }),
  ),
});
