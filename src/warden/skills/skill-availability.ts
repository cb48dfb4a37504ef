import { statSync } from "node:fs";
import { join } from "node:path";
import type { SkillRequirements } from "../../contracts/index.js";

/**
 * Where a cell finds programs: bwrap and process cells see the host's /usr and /bin read-only, with this PATH.
 * A microVM cell's image is built from the same host directories.
 */
export const CELL_IMAGE_BIN_DIRS = ["/usr/local/bin", "/usr/bin", "/bin"] as const;

export type SkillAvailability = { available: true } | { available: false; reason: string };

/**
 * Whether a skill can work in a cell: its binaries come only from the cell image (a skill's installers are never
 * run), and cells run Linux. An unavailable skill stays installed and is listed with the reason.
 */
export function skillAvailability(
  requirements: SkillRequirements,
  binDirs: readonly string[] = CELL_IMAGE_BIN_DIRS,
): SkillAvailability {
  if (requirements.os !== undefined && !requirements.os.includes("linux"))
    return { available: false, reason: `runs only on ${requirements.os.join(", ")}; cells run linux` };
  const where = `not in the cell image (looked in ${binDirs.join(", ")})`;
  const missing = requirements.bins.filter((bin) => !hasProgram(bin, binDirs));
  if (missing.length > 0) return { available: false, reason: `needs ${missing.join(", ")}: ${where}` };
  if (requirements.anyBins.length > 0 && !requirements.anyBins.some((bin) => hasProgram(bin, binDirs)))
    return { available: false, reason: `needs one of ${requirements.anyBins.join(", ")}: none is ${where}` };
  return { available: true };
}

function hasProgram(bin: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => {
    const info = statSync(join(dir, bin), { throwIfNoEntry: false });
    if (!info?.isFile()) return false;
    return (info.mode & 0o111) !== 0;
  });
}
