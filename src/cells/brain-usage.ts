import { constants } from "node:fs";
import { type FileHandle, lstat, open, readdir } from "node:fs/promises";

const DIR_NO_FOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Past this many entries a walk stops and reports what it counted: a brain built to make the host walk forever. */
const MAX_ENTRIES = 1_000_000;
const MAX_DEPTH = 256;

/**
 * Bytes a directory brain takes on disk (allocated blocks, so sparse files count what they really use), walked
 * the way every host-side walk of a guest-writable tree must be: through open directory fds, never following
 * a link, bounded in depth and entries. `complete` is false when a bound cut the walk short.
 */
export async function measureBrainBytes(dir: string): Promise<{ bytes: number; complete: boolean }> {
  const state = { bytes: 0, entries: 0, complete: true };
  const root = await open(dir, DIR_NO_FOLLOW);
  try {
    await walk(root, 0, state);
  } finally {
    await root.close();
  }
  return { bytes: state.bytes, complete: state.complete };
}

async function walk(
  dir: FileHandle,
  depth: number,
  state: { bytes: number; entries: number; complete: boolean },
): Promise<void> {
  state.bytes += (await dir.stat()).blocks * 512;
  if (depth >= MAX_DEPTH) {
    state.complete = false;
    return;
  }
  const base = `/proc/self/fd/${dir.fd}`;
  for (const name of await readdir(base).catch(() => [] as string[])) {
    if (++state.entries > MAX_ENTRIES) {
      state.complete = false;
      return;
    }
    const info = await lstat(`${base}/${name}`).catch(() => undefined);
    if (!info) continue; // removed meanwhile
    if (!info.isDirectory()) {
      state.bytes += info.blocks * 512;
      continue;
    }
    const child = await open(`${base}/${name}`, DIR_NO_FOLLOW).catch(() => undefined);
    if (!child) continue; // replaced by a link since the lstat: not entered
    try {
      await walk(child, depth + 1, state);
    } finally {
      await child.close();
    }
  }
}
