import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile } from "node:fs/promises";
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
 * (created exclusively, so two first uses at once agree on one key). Lives on the host, never in a cell.
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
  const key = await readFile(file);
  if (key.length !== KEY_BYTES)
    throw new IronclawError(
      "wrap_key_invalid",
      `${file} holds ${key.length} bytes instead of ${KEY_BYTES}: it is not a state wrap key; move it away only if no envelope needs it`,
    );
  return { key, id: `sha256:${sha256Hex(key)}`, file };
}
