import { chmod, copyFile, link } from "node:fs/promises";

/**
 * Puts this Node's binary at `target` as a file of its own there: a hard link where both lie on one file system
 * (no 100 MB copy), a copy where they do not. Tests that run node from a place of their choosing use it, since
 * this Node may live where the uid or the cell under test cannot reach (Node from the npm registry sits under
 * /root/.cache), and a symbolic link would lead straight back there.
 */
export async function placeNodeBinary(target: string): Promise<void> {
  try {
    await link(process.execPath, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    await copyFile(process.execPath, target);
    await chmod(target, 0o755);
  }
}
