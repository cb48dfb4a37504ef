import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalBytes, sha256Hex } from "../../core/index.js";
import { encryptBundle } from "./bundle-cipher.js";
import { LOCATOR_FILE } from "./bundle-outputs.js";
import { BUNDLE_FILE } from "./state-pack.js";
import { unpackState } from "./state-unpack.js";
import { readTar, writeTar } from "./ustar.js";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-hostile-tar-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** One ustar header written by hand, as a hostile producer would, with a valid checksum. */
function rawEntry(name: string, type: string, data: Buffer = Buffer.alloc(0), link = ""): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100);
  header.write("0000644\0", 100);
  header.write("0000000\0", 108);
  header.write("0000000\0", 116);
  header.write(`${data.length.toString(8).padStart(11, "0")}\0`, 124);
  header.write("00000000000\0", 136);
  header.write(type, 156, 1);
  header.write(link, 157, 100);
  header.write("ustar\0", 257);
  header.write("00", 263);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header, data, pad]);
}

const EMPTY_MANIFEST = canonicalBytes({ schema_version: "ironclaw-bundle-manifest-v1", entries: [] });

/** A correctly encrypted, correctly hashed bundle folder around a hostile tar: only the tar checks stand. */
function hostileBundle(name: string, entries: Buffer[], key: Buffer): string {
  const dir = join(root, name);
  mkdirSync(dir);
  const tar = Buffer.concat([rawEntry("manifest.json", "0", EMPTY_MANIFEST), ...entries, Buffer.alloc(1024)]);
  const sealed = encryptBundle(tar, key);
  writeFileSync(join(dir, BUNDLE_FILE), sealed);
  const locator = {
    bundle_ref: `artifact://bundles/x/${BUNDLE_FILE}`,
    bundle_sha256: `sha256:${sha256Hex(sealed)}`,
  };
  writeFileSync(join(dir, LOCATOR_FILE), JSON.stringify(locator));
  return dir;
}

describe("a hostile tar in a bundle", () => {
  const key = randomBytes(32);
  const cases: Array<[string, Buffer[], RegExp]> = [
    [
      "dot-dot",
      [rawEntry("brain/../../escape.txt", "0", Buffer.from("out"))],
      /contains \.\., which would leave/,
    ],
    ["absolute", [rawEntry("/tmp/ironclaw-escape.txt", "0", Buffer.from("out"))], /is an absolute path/],
    [
      "symlink",
      [rawEntry("brain/escape", "2", Buffer.alloc(0), "../../")],
      /is a symbolic link; a state bundle holds only/,
    ],
    ["hard link", [rawEntry("brain/passwd", "1", Buffer.alloc(0), "/etc/passwd")], /is a hard link/],
    ["device", [rawEntry("brain/null", "3")], /has entry type '3'/],
    ["outside brain/", [rawEntry("escape.txt", "0", Buffer.from("out"))], /lies outside brain\//],
  ];

  it.each(cases)(
    "%s: refused naming the entry, nothing written inside or outside the target",
    async (name, entries, rule) => {
      const dir = hostileBundle(name.replace(/\W/g, "-"), entries, key);
      const target = join(dir, "deep", "target");
      await expect(unpackState(dir, key, target)).rejects.toThrow(rule);
      expect(existsSync(join(dir, "deep"))).toBe(false);
      expect(existsSync(join(root, "escape.txt"))).toBe(false);
      expect(existsSync("/tmp/ironclaw-escape.txt")).toBe(false);
      expect(readdirSync(dir).sort()).toEqual([LOCATOR_FILE, BUNDLE_FILE].sort());
    },
  );

  it("a file the manifest does not list is refused, so a bundle cannot smuggle an entry past its manifest", async () => {
    const dir = hostileBundle("unlisted", [rawEntry("brain/extra.md", "0", Buffer.from("x"))], key);
    await expect(unpackState(dir, key, join(dir, "target"))).rejects.toThrow(
      /extra\.md: is not in the bundle's manifest/,
    );
    expect(existsSync(join(dir, "target"))).toBe(false);
  });

  it("a hand-written header with a plain path is accepted, so the refusals above are about what the entries are", () => {
    const tar = writeTar([
      { path: "brain", type: "dir", data: Buffer.alloc(0) },
      { path: "brain/a.md", type: "file", data: Buffer.from("a") },
    ]);
    expect(readTar(tar).map((e) => e.path)).toEqual(["brain", "brain/a.md"]);
    // Written by hand the same way as the hostile entries: accepted, so the refusals above are about their content.
    expect(
      readTar(Buffer.concat([rawEntry("brain/b.md", "0", Buffer.from("b")), Buffer.alloc(1024)]))[0]?.path,
    ).toBe("brain/b.md");
  });

  it("long paths use the ustar prefix and come back whole; a bad checksum is refused", () => {
    const long = `brain/${"d".repeat(90)}/${"e".repeat(90)}/note.md`;
    const tar = writeTar([{ path: long, type: "file", data: Buffer.from("deep") }]);
    expect(readTar(tar)[0]).toMatchObject({ path: long, data: Buffer.from("deep") });
    tar[10] = (tar[10] ?? 0) ^ 1;
    expect(() => readTar(tar)).toThrow(/bad header checksum/);
  });
});
