import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBrainDir } from "./brain-dir.js";
import { runProgram } from "./host-probe.js";

/**
 * A microVM user's brain: `users/<uid>/brain.ext4`, a sparse ext4 image made on first start from a freshly
 * laid-out brain. Its fixed size is the user's disk quota: a guest that fills it gets ENOSPC, not the host.
 */
export async function ensureBrainDisk(
  userDir: string,
  sizeMiB: number,
): Promise<{ file: string; created: boolean }> {
  const file = join(userDir, "brain.ext4");
  if (existsSync(file)) return { file, created: false };
  const seed = await mkdtemp(join(tmpdir(), "ironclaw-brain-seed-"));
  try {
    const brain = await ensureBrainDir(seed);
    const tmp = `${file}.tmp`;
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
    if (!mkfs.ok) throw new Error(`mkfs.ext4 for the brain disk failed: ${mkfs.stderr.trim()}`);
    const { rename } = await import("node:fs/promises");
    await rename(tmp, file);
    return { file, created: true };
  } finally {
    await rm(seed, { recursive: true, force: true });
  }
}
