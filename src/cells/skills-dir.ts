import { lstat, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { CellStartError } from "./cell.js";

/** Where a cell sees its user's installed skills, read-only (the runtime's `--skills`). */
export const SKILLS_IN_CELL = "/mnt/skills";

/**
 * The user's installed skills on the host, `users/<uid>/skills/`: beside the brain, never inside it, because the
 * agent can write its brain and must not be able to install or change a skill. Created empty when missing, so
 * every cell has the same read-only mount whether or not its user has installed anything; a link there is
 * refused (it would show the cell whatever it points at).
 */
export async function ensureSkillsDir(userDir: string): Promise<string> {
  const dir = join(userDir, "skills");
  // Readable by the cell's uid: the folder is host-owned, and only the mount's read-only flag guards it.
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const info = await lstat(dir);
  if (!info.isDirectory()) {
    throw new CellStartError(
      `${dir} is ${info.isSymbolicLink() ? "a symbolic link" : "not a directory"}: installed skills must be a real directory; move it away and start again`,
    );
  }
  return dir;
}

/** How many skills are installed in `users/<uid>/skills/`, without creating it. */
export async function countInstalledSkills(userDir: string): Promise<number> {
  const entries = await readdir(join(userDir, "skills"), { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).length;
}
