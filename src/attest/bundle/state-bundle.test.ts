import { randomBytes, randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BundleAuthError, decryptBundle, encryptBundle } from "./bundle-cipher.js";
import { LOCATOR_FILE } from "./bundle-outputs.js";
import { BUNDLE_FILE, packState } from "./state-pack.js";
import { BundleHashError, unpackState } from "./state-unpack.js";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-bundle-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A small brain: markdown, a real SQLite database, an empty folder, and a link that must not travel. */
function makeBrain(dir: string): void {
  mkdirSync(join(dir, "db"), { recursive: true });
  mkdirSync(join(dir, "logs"));
  mkdirSync(join(dir, "instructions"));
  writeFileSync(join(dir, "soul.md"), "# Soul\nKind and exact.\n");
  writeFileSync(join(dir, "memory.md"), "- likes tea\n");
  writeFileSync(join(dir, "instructions", "style.md"), "Short answers.\n");
  const db = new Database(join(dir, "db", "ironclaw.db"));
  db.exec("CREATE TABLE facts (text TEXT); INSERT INTO facts VALUES ('tea'), ('green');");
  db.close();
  symlinkSync("/etc/passwd", join(dir, "passwd-link"));
}

/** A bundle folder as packState leaves it, with the locator unpackState reads the hash from. */
async function packTo(brain: string, out: string, key: Buffer) {
  const packed = await packState({
    stateDir: brain,
    stateId: randomUUID(),
    ratchetStep: 0,
    key,
    outDir: out,
  });
  writeLocator(out, packed.bundleSha256, packed.manifestSha256);
  return packed;
}

function writeLocator(out: string, bundleSha256: string, manifestSha256?: string): void {
  const locator = { bundle_ref: `artifact://bundles/x/${BUNDLE_FILE}`, bundle_sha256: bundleSha256 };
  writeFileSync(
    join(out, LOCATOR_FILE),
    JSON.stringify(manifestSha256 ? { ...locator, manifest_sha256: manifestSha256 } : locator),
  );
}

describe("state bundles", () => {
  const key = randomBytes(32);
  let brain: string;
  let out: string;
  beforeAll(() => {
    brain = join(root, "brain");
    out = join(root, "bundle");
    mkdirSync(brain);
    makeBrain(brain);
  });

  it("round trip: the restored brain has the same files, bytes and database rows; the link stays behind", async () => {
    const packed = await packTo(brain, out, key);
    expect(packed.skipped).toEqual([{ path: "passwd-link", reason: "a symbolic link" }]);
    expect(packed.bundleSha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    const target = join(root, "restored");
    const restored = await unpackState(out, key, target);
    expect(restored.manifestSha256).toBe(packed.manifestSha256);
    expect(restored.files).toBe(4);
    for (const file of ["soul.md", "memory.md", "instructions/style.md", "db/ironclaw.db"])
      expect(readFileSync(join(target, file))).toEqual(readFileSync(join(brain, file)));
    expect(readdirSync(join(target, "logs"))).toEqual([]);
    expect(existsSync(join(target, "passwd-link"))).toBe(false);
    const db = new Database(join(target, "db", "ironclaw.db"), { readonly: true });
    expect(db.prepare("SELECT text FROM facts ORDER BY text").pluck().all()).toEqual(["green", "tea"]);
    db.close();
  });

  it("bundle_sha256 is the digest of exactly the bytes on disk, and the plaintext is not in them", async () => {
    const packed = await packTo(brain, out, key);
    const onDisk = readFileSync(join(out, BUNDLE_FILE));
    expect(packed.sizeBytes).toBe(onDisk.length);
    expect(onDisk.includes(Buffer.from("Kind and exact."))).toBe(false);
  });

  it("a flipped byte anywhere in state_bundle.tar.enc (header, IV, body, tag) is refused by the bundle hash check", async () => {
    const packed = await packTo(brain, out, key);
    const sealed = readFileSync(packed.file);
    for (let at = 0; at < sealed.length; at += at < 64 || at > sealed.length - 64 ? 1 : 97) {
      const flipped = Buffer.from(sealed);
      flipped[at] = (flipped[at] ?? 0) ^ 0x01;
      writeFileSync(packed.file, flipped);
      const error = await unpackState(out, key, join(root, `never-${at}`)).catch((e: Error) => e);
      expect(error, `byte ${at}`).toBeInstanceOf(BundleHashError);
      expect((error as Error).message).toMatch(
        /^bundle_sha256 check failed: state_bundle\.tar\.enc hashes to/,
      );
      expect(existsSync(join(root, `never-${at}`))).toBe(false);
    }
    writeFileSync(packed.file, sealed);
    await expect(unpackState(out, key, join(root, "unflipped"))).resolves.toMatchObject({ files: 4 });
  });

  it("a flipped byte whose new hash was written too still fails AES-256-GCM authentication", async () => {
    const sealed = encryptBundle(Buffer.from("a brain"), key);
    for (let at = 0; at < sealed.length; at++) {
      const flipped = Buffer.from(sealed);
      flipped[at] = (flipped[at] ?? 0) ^ 0x80;
      expect(() => decryptBundle(flipped, key), `byte ${at}`).toThrow(
        /IRCB header|format version|authentication/,
      );
    }
    expect(decryptBundle(sealed, key).toString()).toBe("a brain");
  });

  it("a wrong key is refused by GCM authentication and nothing is restored", async () => {
    await packTo(brain, out, key);
    const target = join(root, "wrong-key");
    const error = await unpackState(out, randomBytes(32), target).catch((e: Error) => e);
    expect(error).toBeInstanceOf(BundleAuthError);
    expect((error as Error).message).toMatch(/AES-256-GCM authentication/);
    expect(existsSync(target)).toBe(false);
  });

  it("a bundle folder whose locator is missing or not JSON is refused naming the file", async () => {
    const dir = join(root, "no-locator");
    mkdirSync(dir);
    writeFileSync(join(dir, BUNDLE_FILE), encryptBundle(Buffer.alloc(1024), key));
    await expect(unpackState(dir, key, join(dir, "t"))).rejects.toThrow(
      /^bundle_locator_next\.json: is missing from the bundle folder/,
    );
    writeFileSync(join(dir, LOCATOR_FILE), "{not json");
    await expect(unpackState(dir, key, join(dir, "t"))).rejects.toThrow(
      /^bundle_locator_next\.json: is not JSON/,
    );
  });

  it("restores only into an empty directory", async () => {
    await packTo(brain, out, key);
    const target = join(root, "occupied");
    mkdirSync(target);
    writeFileSync(join(target, "keep.md"), "mine");
    await expect(unpackState(out, key, target)).rejects.toThrow(/not empty/);
    expect(readdirSync(target)).toEqual(["keep.md"]);
  });

  it("two packs of the same tree give the same manifest hash; a changed byte changes it", async () => {
    const a = await packState({
      stateDir: brain,
      stateId: randomUUID(),
      ratchetStep: 0,
      key,
      outDir: join(root, "a"),
    });
    const b = await packState({
      stateDir: brain,
      stateId: randomUUID(),
      ratchetStep: 3,
      key: randomBytes(32),
      outDir: join(root, "b"),
    });
    expect(b.manifestSha256).toBe(a.manifestSha256);
    // Random IVs: the same tree never encrypts to the same bytes.
    expect(b.bundleSha256).not.toBe(a.bundleSha256);
    writeFileSync(join(brain, "memory.md"), "- likes coffee\n");
    const c = await packState({
      stateDir: brain,
      stateId: randomUUID(),
      ratchetStep: 0,
      key,
      outDir: join(root, "c"),
    });
    expect(c.manifestSha256).not.toBe(a.manifestSha256);
    writeFileSync(join(brain, "memory.md"), "- likes tea\n");
  });

  it("a file list packs like the same tree: parents become directories, paths stay inside", async () => {
    const files = [{ path: "notes/a.md", data: Buffer.from("a") }];
    const packed = await packState({
      files,
      stateId: randomUUID(),
      ratchetStep: 0,
      key,
      outDir: join(root, "list"),
    });
    expect(packed.manifest.entries.map((e) => `${e.type}:${e.path}`)).toEqual([
      "dir:notes",
      "file:notes/a.md",
    ]);
    await expect(
      packState({
        files: [{ path: "../a.md", data: Buffer.alloc(1) }],
        stateId: "s",
        ratchetStep: 0,
        key,
        outDir: root,
      }),
    ).rejects.toThrow(/bundle entry \.\.\/a\.md: contains \.\./);
  });
});
