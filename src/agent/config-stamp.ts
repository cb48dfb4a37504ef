import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { BRAIN_PATHS, type BrainLayout } from "../memory/index.js";

/** Sizes and modification times of the config files, cheap enough to compare before every turn. */
export function configStamp(brain: BrainLayout): string {
  const parts: string[] = [];
  const add = (file: string) => {
    try {
      const s = statSync(file);
      parts.push(`${file}:${s.size}:${s.mtimeMs}`);
    } catch {
      parts.push(`${file}:-`);
    }
  };
  add(brain.resolve(BRAIN_PATHS.irowclawConfig));
  const agents = brain.resolve(BRAIN_PATHS.agents);
  add(agents);
  try {
    for (const name of readdirSync(agents).sort()) add(join(agents, name));
  } catch {}
  return parts.join("|");
}
