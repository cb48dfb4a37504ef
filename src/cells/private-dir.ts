import { lstat, mkdir } from "node:fs/promises";
import { CellStartError } from "./cell.js";

/**
 * Creates `dir` (0700) when it is missing, then insists that it is a real directory of this process's uid that
 * nobody else may enter. The warden's sockets to QEMU live there (the guest's channel, its monitor, a save's
 * stream): whoever could replace one could drive a VM or read a guest's memory. A directory under /tmp may
 * have been made by another local user before the warden's first start, and mkdir leaves it as it was.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  const uid = process.getuid?.();
  const why = !info.isDirectory()
    ? "is not a directory (a symbolic link?)"
    : uid !== undefined && info.uid !== uid
      ? `belongs to uid ${info.uid}, not to uid ${uid} that runs the warden`
      : (info.mode & 0o077) !== 0
        ? `is mode 0${(info.mode & 0o777).toString(8)}: others may enter it`
        : undefined;
  if (why)
    throw new CellStartError(
      `${dir} ${why}; it holds the warden's sockets to its cells, so it must be the warden's alone (0700): remove it and start again`,
    );
}
