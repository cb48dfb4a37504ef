import { generateKeyPairSync, verify } from "node:crypto";
import {
  chmodSync,
  chownSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HOST_KEY_DIR, HOST_KEY_FILE, HostKeyError, loadOrCreateHostKey } from "./host-key.js";
import { keyIdOf, parsePublicKeyPem } from "./public-key.js";

const freshHome = () => mkdtempSync(join(tmpdir(), "ironclaw-hostkey-"));
const keyFile = (home: string) => join(home, HOST_KEY_DIR, HOST_KEY_FILE);

describe("the host key", () => {
  it("is created once, private to this user, and loaded as the same key afterwards", () => {
    const home = freshHome();
    const first = loadOrCreateHostKey(home);
    expect(statSync(keyFile(home)).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, HOST_KEY_DIR)).mode & 0o777).toBe(0o700);
    const again = loadOrCreateHostKey(home);
    expect(again.keyId).toBe(first.keyId);
    expect(first.keyId).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("signs with Ed25519 so that its published public key verifies the signature", () => {
    const key = loadOrCreateHostKey(freshHome());
    const published = parsePublicKeyPem(key.publicKeyPem);
    const signature = key.sign(Buffer.from("turn 1"));
    expect(keyIdOf(published)).toBe(key.keyId);
    expect(verify(null, Buffer.from("turn 1"), published, signature)).toBe(true);
    expect(verify(null, Buffer.from("turn 2"), published, signature)).toBe(false);
  });

  it("refuses a key file others can read, naming the file and the fix", () => {
    const home = freshHome();
    loadOrCreateHostKey(home);
    chmodSync(keyFile(home), 0o644);
    expect(() => loadOrCreateHostKey(home)).toThrow(HostKeyError);
    expect(() => loadOrCreateHostKey(home)).toThrow(`${keyFile(home)}: the host key file has mode 0644`);
    expect(() => loadOrCreateHostKey(home)).toThrow("chmod 600");
  });

  it("refuses a key directory others can write to", () => {
    const home = freshHome();
    loadOrCreateHostKey(home);
    chmodSync(join(home, HOST_KEY_DIR), 0o777);
    expect(() => loadOrCreateHostKey(home)).toThrow("chmod 700");
  });

  it("refuses a key file that is a symbolic link instead of following it", () => {
    const home = freshHome();
    loadOrCreateHostKey(home);
    renameSync(keyFile(home), join(home, "elsewhere.pem"));
    symlinkSync(join(home, "elsewhere.pem"), keyFile(home));
    expect(() => loadOrCreateHostKey(home)).toThrow("is a symbolic link");
  });

  it.skipIf(process.getuid?.() !== 0)("refuses a key file another user owns", () => {
    const home = freshHome();
    loadOrCreateHostKey(home);
    chownSync(keyFile(home), 4321, 4321);
    expect(() => loadOrCreateHostKey(home)).toThrow("is owned by uid 4321");
  });

  it("refuses a key of another algorithm", () => {
    const home = freshHome();
    loadOrCreateHostKey(home);
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    });
    writeFileSync(keyFile(home), ec, { mode: 0o600 });
    expect(() => loadOrCreateHostKey(home)).toThrow("is a ec key; the host key must be Ed25519");
    expect(readFileSync(keyFile(home), "utf8")).toContain("PRIVATE KEY");
  });
});
