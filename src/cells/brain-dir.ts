import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { initBrain } from "../memory/index.js";

/**
 * The user's brain directory for the directory-based backends, created and seeded with memory's starter
 * layout (what `ironclaw brain init` writes) on first start. An existing brain is never touched: persistence
 * lives here, and only here.
 */
export async function ensureBrainDir(userDir: string): Promise<{ dir: string; created: boolean }> {
  const dir = join(userDir, "brain");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const created = (await readdir(dir)).length === 0;
  if (created) await initBrain(dir);
  return { dir, created };
}
