import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { chmod, mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import { IronclawError, sha256Hex } from "../../core/index.js";
import { KEY_BYTES } from "./bundle-cipher.js";

/** The key only this host holds, under which the next state's keys travel as envelopes. */
export interface HostWrapKey {
  key: Buffer;
  /** `sha256:<hex>` of the key: names which host's key an envelope needs without revealing it. */
  id: string;
  file: string;
}

export const WRAP_KEY_FILE = "state-wrap.key";

/**
 * IRONCLAW_HOME/attest/state-wrap.key, 32 random bytes made on first use: the directory 0700 and the file 0600
 * (created exclusively, so two first uses at once agree on one key). Lives on the host, never in a cell. A key
 * file that is a link, that others can read, or that another user owns is refused: whoever reads it opens
 * every envelope.
 */
export async function loadHostWrapKey(home: string): Promise<HostWrapKey> {
  const dir = join(home, "attest");
  const file = join(dir, WRAP_KEY_FILE);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  try {
    const handle = await open(file, "wx", 0o600);
    try {
      await handle.writeFile(randomBytes(KEY_BYTES));
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const key = await readPrivateFile(file);
  if (key.length !== KEY_BYTES)
    throw refused(file, `holds ${key.length} bytes instead of ${KEY_BYTES}: it is not a state wrap key`);
  return { key, id: `sha256:${sha256Hex(key)}`, file };
}

async function readPrivateFile(file: string): Promise<Buffer> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW).catch((error) => {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw refused(file, "is a symbolic link");
    throw error;
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw refused(file, "is not a regular file");
    if ((info.mode & 0o077) !== 0)
      throw refused(file, `is mode ${(info.mode & 0o777).toString(8)}; it must be 0600`);
    if (info.uid !== process.getuid?.())
      throw refused(file, `belongs to uid ${info.uid}, not to this process`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

function refused(file: string, rule: string): IronclawError {
  return new IronclawError("wrap_key_refused", `${file}: ${rule}; move it away only if no envelope needs it`);
}
