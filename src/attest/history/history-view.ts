import { lstatSync } from "node:fs";
import { join } from "node:path";
import { IronclawError } from "../../core/index.js";
import type { HistoryEntry } from "./brain-history.js";

/** A history entry as `ironclaw brain log --json` and the warden's history routes show it. */
export function historyEntryJson(entry: HistoryEntry) {
  const { node, commit, cause, at, redacted } = entry;
  return { node, commit, cause, at, redacted };
}

/**
 * The brain directory a restore may write under a user's folder (users/<uid>/): restore writes directory
 * brains only, so a brain kept as a disk image, or none at all, is refused with what was found there.
 */
export function restorableBrainDir(userDir: string, userId: string): string {
  const brainDir = join(userDir, "brain");
  if (lstatSync(brainDir, { throwIfNoEntry: false })?.isDirectory()) return brainDir;
  const image = join(userDir, "brain.ext4");
  throw new IronclawError(
    "not_found",
    lstatSync(image, { throwIfNoEntry: false })
      ? `the brain of ${userId} is a disk image (${image}): restore writes directory brains only`
      : `no brain directory for ${userId} at ${brainDir}`,
  );
}
