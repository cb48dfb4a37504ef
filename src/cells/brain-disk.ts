import { chmod, lstat, mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBrainDir } from "./brain-dir.js";
import { type BrainSeed, CellStartError } from "./cell.js";
import { runProgram } from "./host-probe.js";

/**
 * A microVM user's brain: `users/<uid>/brain.ext4`, a sparse ext4 image made on first start from a freshly
 * laid-out brain. Its fixed size is the user's disk quota: a guest that fills it gets ENOSPC, not the host.
 */
export async function ensureBrainDisk(
  userDir: string,
  sizeMiB: number,
  seed: BrainSeed = {},
  options: { fromDir?: string } = {},
): Promise<{ file: string; created: boolean }> {
  const file = join(userDir, "brain.ext4");
  const existing = await lstat(file).catch(() => undefined);
  // QEMU opens the disk read-write and follows links: a link here would hand the guest its target as a disk.
  if (existing && !existing.isFile()) {
    throw new CellStartError(
      `${file} is ${existing.isSymbolicLink() ? "a symbolic link" : "not a regular file"}: a brain disk must be a real file; move it away and start again`,
    );
  }
  if (existing) return { file, created: false };
  const seedDir = await mkdtemp(join(tmpdir(), "ironclaw-brain-seed-"));
  try {
    // A directory brain moving into an image (a bwrap cell under a root warden) is copied as it is.
    const brain = options.fromDir ? { dir: options.fromDir } : await ensureBrainDir(seedDir, seed);
    const tmp = `${file}.tmp`;
    // mkfs -F writes through a link; a leftover from an earlier attempt is removed, never followed.
    await rm(tmp, { force: true });
    const mkfs = await runProgram(
      "mkfs.ext4",
      [
        "-q",
        "-F",
        "-L",
        "irc-brain",
        "-m",
        "0",
        "-E",
        "root_owner=1000:1000",
        "-d",
        brain.dir,
        tmp,
        `${sizeMiB}M`,
      ],
      120_000,
    );
    if (!mkfs.ok) {
      await rm(tmp, { force: true });
      const full = /could not allocate|no space|too many|not enough/i.test(mkfs.stderr);
      throw new CellStartError(
        full
          ? `the brain in ${brain.dir} does not fit a ${sizeMiB} MiB brain disk: remove files from it or raise the brain quota`
          : `mkfs.ext4 for the brain disk failed: ${mkfs.stderr.trim()}`,
      );
    }
    // The whole brain, readable by whoever can read the file: its owner (the warden) alone.
    await chmod(tmp, 0o600);
    await rename(tmp, file);
    return { file, created: true };
  } finally {
    await rm(seedDir, { recursive: true, force: true });
  }
}
