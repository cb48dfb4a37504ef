import { mkdir } from "node:fs/promises";
import { BrainHistory, writeBrainTree } from "../../attest/index.js";
import type { IronclawdConfig } from "../../contracts/index.js";
import { initBrain } from "../../memory/index.js";
import type { UserBrainPlace } from "../user-brain.js";

export interface RebuiltBrain {
  files: number;
  bytes: number;
  /** Brain-relative paths a new brain has and the history does not keep (config/, cron/), written here. */
  filledIn: string[];
}

/**
 * Writes the markdown tree the history's node `headNodeId` pinned into the new directory `dir`, then fills in
 * what a history does not keep: the runtime's config and the cron table as a new brain on this host starts
 * with them ([new_brains]). The database is left out: it is the search index of the markdown, which the
 * agent runtime builds when the cell opens the brain (AgentRuntime.open indexes on open).
 */
export async function brainFromHistory(
  place: UserBrainPlace,
  user: string,
  headNodeId: string,
  dir: string,
): Promise<RebuiltBrain> {
  const tree = await BrainHistory.open(place.home, user).treeOf(headNodeId);
  await mkdir(dir, { mode: 0o700 });
  writeBrainTree(dir, tree);
  const { created } = await initBrain(dir, seedOf(place.config));
  let bytes = 0;
  for (const content of tree.values()) bytes += content.length;
  return { files: tree.size, bytes, filledIn: created };
}

/** What a new brain on this host starts with, as the warden seeds a new user's ([new_brains]). */
function seedOf(config: IronclawdConfig) {
  const { provider, model, embedding_provider, embedding_model } = config.new_brains;
  return {
    ...(provider ? { provider } : {}),
    ...(model ? { model } : {}),
    ...(embedding_provider && embedding_model
      ? { embedding: { provider: embedding_provider, model: embedding_model } }
      : {}),
  };
}
