import { lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareScratchRoot, SCRATCH_ROOT } from "../../cells/index.js";
import { runProgramViaHelper } from "../../core/index.js";

/** How much a cell may leave in a scratch folder: bytes (tmpfs pages) and entries (inodes). */
export interface ScratchCap {
  bytes: number;
  inodes: number;
}

export interface BoundedScratch {
  dir: string;
  /** Whether `dir` is a tmpfs of its own, capped (only a root host can mount one). */
  bounded: boolean;
  remove(): Promise<void>;
}

const PAGE = 4096;

/**
 * A scratch folder that a cell's writes land in (an order's attached copy, a gate's merged checkout). A cell
 * writing into a host folder would otherwise be held by nothing but its per-file size limit: an order could fill
 * the host's disk for as long as it runs, where a brain image holds it to the brain's quota. On a root host
 * (the only one that attaches folders to cells) the folder is a tmpfs of its own, capped in bytes and inodes, so
 * a write past the cap fails with ENOSPC inside the cell and the host's disk is never touched. Elsewhere it is a
 * plain folder under the temporary directory: no cell has a host folder attached there, its trees travel through
 * the protocol.
 */
export async function boundedScratch(prefix: string, cap: ScratchCap): Promise<BoundedScratch> {
  if (process.getuid?.() !== 0) {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    return { dir, bounded: false, remove: () => rm(dir, { recursive: true, force: true }) };
  }
  // Under the cells' shared scratch root, so that the mount reaches the stage of a cell started before it.
  await prepareScratchRoot();
  const dir = await mkdtemp(join(SCRATCH_ROOT, prefix));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  const size = Math.ceil(cap.bytes / PAGE) * PAGE;
  const inodes = Math.max(64, Math.ceil(cap.inodes));
  try {
    await runTool("mount", [
      "-t",
      "tmpfs",
      "-o",
      `size=${size},nr_inodes=${inodes},mode=0700,nosuid,nodev`,
      "ironclaw-scratch",
      dir,
    ]);
  } catch (error) {
    await removeDir();
    throw error;
  }
  return {
    dir,
    bounded: true,
    remove: async () => {
      // Lazily: a cell that has not quite let go yet must not keep the mount, or its pages, alive for good.
      await runTool("umount", ["--lazy", dir]).catch(() => undefined);
      await removeDir();
    },
  };
}

/** What a tree takes on a tmpfs: its files' pages and one inode per entry (links and folders included). */
export async function footprintOf(root: string, skip: (name: string) => boolean): Promise<ScratchCap> {
  let bytes = PAGE;
  let inodes = 1;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (skip(entry.name)) continue;
      const path = join(dir, entry.name);
      inodes += 1;
      if (entry.isDirectory()) {
        bytes += PAGE;
        await walk(path);
      } else if (entry.isFile()) bytes += Math.ceil((await lstat(path)).size / PAGE) * PAGE;
      else bytes += PAGE;
    }
  };
  await walk(root);
  return { bytes, inodes };
}

/** Runs a host tool with fixed arguments (no shell); rejects with its stderr when it fails. */
export async function runTool(file: string, args: string[]): Promise<void> {
  // Through the small helper process (program-runner.ts): these run on an order's path, from a large warden.
  const outcome = await runProgramViaHelper(file, args, { timeoutMs: 120_000 });
  if (!outcome.ok)
    throw new Error(`${file} failed: ${outcome.error ?? (outcome.stderr.trim() || `exit ${outcome.code}`)}`);
}
