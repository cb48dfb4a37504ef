import { hkdfSync, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { IronclawError } from "../../core/index.js";

/** The master key of users' secrets, beside host.db: whoever holds host.db alone cannot read a secret. */
export const SECRETS_KEY_FILE = "secrets.key";
const KEY_BYTES = 32;

export class SecretKeyError extends IronclawError {
  override readonly name = "SecretKeyError";
  constructor(file: string, problem: string) {
    super("secret_key_refused", `${file}: ${problem}`);
  }
}

/**
 * The keys derived from IRONCLAW_HOME/secrets.key, one per purpose (HKDF-SHA256), so a placeholder's tag can
 * never be turned into a key that opens a stored value. The file is made on first use, not at start: a host
 * that never stores a secret never gets one.
 */
export class SecretKeyring {
  private master: Buffer | undefined;

  constructor(private readonly home: string) {}

  get file(): string {
    return join(this.home, SECRETS_KEY_FILE);
  }

  /** AES-256-GCM key of stored values. */
  valueKey(): Buffer {
    return this.derive("ironclaw secrets at rest v1");
  }

  /** HMAC-SHA256 key of placeholders' tags. */
  placeholderKey(): Buffer {
    return this.derive("ironclaw placeholders v1");
  }

  private derive(purpose: string): Buffer {
    this.master ??= loadOrCreateKey(this.file);
    return Buffer.from(hkdfSync("sha256", this.master, Buffer.alloc(0), purpose, KEY_BYTES));
  }
}

/**
 * Reads the key, or makes it: 32 random bytes written to a private temporary file that is then linked into place,
 * so a second process starting at the same moment reads either nothing (and makes its own attempt, which loses
 * the link) or the whole key, never half of one.
 */
function loadOrCreateKey(file: string): Buffer {
  const existing = readKey(file);
  if (existing) return existing;
  mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    writeSync(fd, randomBytes(KEY_BYTES));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
  const key = readKey(file);
  if (!key) throw new SecretKeyError(file, "vanished while it was being created");
  return key;
}

/** The key, or undefined when there is no file. A link, a readable-by-others file or a wrong size is refused. */
function readKey(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new SecretKeyError(file, "is a symbolic link; refusing to follow it");
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new SecretKeyError(file, "is not a regular file");
    if ((stat.mode & 0o077) !== 0)
      throw new SecretKeyError(
        file,
        `is readable or writable by group or others (mode ${(stat.mode & 0o777).toString(8)}); ` +
          "it must be 600 (chmod 600 the file, and consider the secrets it protected exposed)",
      );
    if (typeof process.getuid === "function" && stat.uid !== process.getuid())
      throw new SecretKeyError(file, `belongs to uid ${stat.uid}, not to the warden's user`);
    if (stat.size !== KEY_BYTES)
      throw new SecretKeyError(file, `holds ${stat.size} bytes; a key is exactly ${KEY_BYTES}`);
    const key = Buffer.alloc(KEY_BYTES);
    if (readSync(fd, key, 0, KEY_BYTES, 0) !== KEY_BYTES)
      throw new SecretKeyError(file, "could not be read whole");
    return key;
  } finally {
    closeSync(fd);
  }
}
