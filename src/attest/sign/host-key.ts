import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { IronclawError } from "../../core/index.js";
import { keyIdOf } from "./public-key.js";

/** The host's signing key: `IRONCLAW_HOME/attest/host-key.pem`, an Ed25519 private key in PKCS#8 PEM. */
export const HOST_KEY_DIR = "attest";
export const HOST_KEY_FILE = "host-key.pem";

/** The host's Ed25519 identity. The private key stays in the warden's process; only signatures leave it. */
export interface HostKey {
  readonly publicKey: KeyObject;
  /** SPKI PEM: what an evidence folder carries as `public-key.pem`. */
  readonly publicKeyPem: string;
  /** `sha256:<hex of the SPKI DER>`, the proof's `key_id`. */
  readonly keyId: string;
  /** The file the private key was read from. */
  readonly file: string;
  sign(message: Uint8Array): Buffer;
}

/** A key file or directory others could read or replace: signing with it would prove nothing. */
export class HostKeyError extends IronclawError {
  override readonly name = "HostKeyError";
  constructor(
    readonly file: string,
    rule: string,
  ) {
    super("host_key_refused", `${file}: ${rule}`);
  }
}

/**
 * Loads the host key under `home`, creating it on first use. The directory is made 0700 and the key 0600; an
 * existing key (or directory) that group or others can reach, that another user owns, or that is a symlink is
 * refused rather than used, since anyone who could read it could sign certificates as this host.
 */
export function loadOrCreateHostKey(home: string): HostKey {
  const dir = join(home, HOST_KEY_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Created 0700; an existing one is refused only where others could swap the key file inside it.
  checkPrivate(dir, lstatSync(dir), 0o022, "directory");
  const file = join(dir, HOST_KEY_FILE);
  const pem = readKeyFile(file) ?? createKeyFile(file);
  const privateKey = createPrivateKey({ key: pem, format: "pem" });
  if (privateKey.asymmetricKeyType !== "ed25519")
    throw new HostKeyError(file, `is a ${privateKey.asymmetricKeyType} key; the host key must be Ed25519`);
  const publicKey = createPublicKey(privateKey);
  return {
    publicKey,
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    keyId: keyIdOf(publicKey),
    file,
    sign: (message) => sign(null, message, privateKey),
  };
}

/** The key's PEM, or undefined when there is none yet. Opened without following a link, checked on the fd. */
function readKeyFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP")
      throw new HostKeyError(file, "is a symbolic link; the host key must be a plain file");
    throw error;
  }
  try {
    checkPrivate(file, fstatSync(fd), 0o077, "file");
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a new key beside its final name and links it into place: a second process starting at the same moment
 * either wins the link or reads the winner's complete file, never a half-written one.
 */
function createKeyFile(file: string): string {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const temp = `${file}.${process.pid}.new`;
  writeFileSync(temp, pem, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return readKeyFile(file) ?? pem;
  } finally {
    unlinkSync(temp);
  }
  return pem;
}

function checkPrivate(
  path: string,
  stats: { mode: number; uid: number; isSymbolicLink(): boolean },
  forbidden: number,
  what: string,
): void {
  if (stats.isSymbolicLink())
    throw new HostKeyError(path, `the host key ${what} must not be a symbolic link`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid)
    throw new HostKeyError(
      path,
      `the host key ${what} is owned by uid ${stats.uid}, not by this user (${uid})`,
    );
  const mode = stats.mode & 0o777;
  if ((mode & forbidden) !== 0)
    throw new HostKeyError(
      path,
      `the host key ${what} has mode ${mode.toString(8).padStart(4, "0")}; ${what === "directory" ? "group and others must not write to it (chmod 700)" : "group and others must have no access (chmod 600)"}`,
    );
}
