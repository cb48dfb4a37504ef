import { statSync } from "node:fs";
import { join } from "node:path";
import type { SkillRequirements } from "../../contracts/index.js";

/** Where a skill would run: the cell's operating system and the PATH its tools get. */
export interface SkillHost {
  platform: NodeJS.Platform;
  /** Colon-separated, as in the environment. */
  path: string;
}

export function currentSkillHost(env: NodeJS.ProcessEnv = process.env): SkillHost {
  return { platform: process.platform, path: env.PATH ?? "" };
}

/**
 * Why a skill cannot run here, or undefined when it can. Binaries come only from the cell image (nothing a skill
 * asks to install is ever installed), so a skill whose programs are missing is not offered to the model: it
 * would only fail, or tempt the model to fetch the program itself.
 */
export function skillUnavailableReason(req: SkillRequirements, host: SkillHost): string | undefined {
  if (req.os && req.os.length > 0 && !req.os.includes(host.platform))
    return `runs only on ${req.os.join(", ")}, not ${host.platform}`;
  const dirs = host.path.split(":").filter((d) => d.startsWith("/"));
  const missing = req.bins.filter((bin) => !onPath(bin, dirs));
  if (missing.length > 0) return `needs ${missing.join(", ")} (not in this cell's image)`;
  if (req.anyBins.length > 0 && !req.anyBins.some((bin) => onPath(bin, dirs)))
    return `needs one of ${req.anyBins.join(", ")} (none in this cell's image)`;
  return undefined;
}

function onPath(bin: string, dirs: readonly string[]): boolean {
  // The schema holds a bin to a bare name; a slash here would look outside PATH.
  if (bin.includes("/")) return false;
  // stat without throwing: a listing looks up every bin in every PATH folder, and most are not there.
  return dirs.some((dir) => {
    const info = statSync(join(dir, bin), { throwIfNoEntry: false });
    return info?.isFile() === true && (info.mode & 0o111) !== 0;
  });
}
