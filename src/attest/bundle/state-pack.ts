import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalBytes, InvalidInputError, sha256Hex } from "../../core/index.js";
import { encryptBundle } from "./bundle-cipher.js";
import { type BundleManifest, manifestOf } from "./bundle-manifest.js";
import { readStateTree, type SkippedEntry, sortByPath } from "./state-tree.js";
import { checkEntryPath, type TarEntry, writeTar } from "./ustar.js";

export const BUNDLE_FILE = "state_bundle.tar.enc";
/** Inside the tar: the manifest first, then the brain's tree under this directory. */
export const MANIFEST_ENTRY = "manifest.json";
export const TREE_DIR = "brain";

export interface PackInput {
  /** The brain directory to pack, walked without following links; or `files`, already read. */
  stateDir?: string;
  files?: ReadonlyArray<{ path: string; data: Buffer }>;
  stateId: string;
  ratchetStep: number;
  /** This step's 32-byte key. */
  key: Buffer;
  /** Where `state_bundle.tar.enc` is written (created if missing). */
  outDir: string;
}

export interface PackedState {
  file: string;
  stateId: string;
  ratchetStep: number;
  /** `sha256:<hex>` of exactly the encrypted bytes on disk, read back after writing. */
  bundleSha256: string;
  sizeBytes: number;
  manifest: BundleManifest;
  /** `sha256:<hex>` of the manifest's canonical JSON: the same tree always gives the same digest. */
  manifestSha256: string;
  /** Links and special files of the tree, left out. */
  skipped: SkippedEntry[];
}

export async function packState(input: PackInput): Promise<PackedState> {
  const { entries, skipped } = treeOf(input);
  const manifest = manifestOf(entries);
  const manifestBytes = canonicalBytes(manifest);
  const tar = writeTar([
    { path: MANIFEST_ENTRY, type: "file", data: manifestBytes },
    { path: TREE_DIR, type: "dir", data: Buffer.alloc(0) },
    ...entries.map((e) => ({ ...e, path: `${TREE_DIR}/${e.path}` })),
  ]);
  await mkdir(input.outDir, { recursive: true, mode: 0o700 });
  const file = join(input.outDir, BUNDLE_FILE);
  const tmp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, encryptBundle(tar, input.key), { mode: 0o600, flag: "wx" });
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
  // Seed 002 §4, hash exactly the uploaded bytes: what is on disk now, not the buffer that was meant to be.
  const written = await readFile(file);
  return {
    file,
    stateId: input.stateId,
    ratchetStep: input.ratchetStep,
    bundleSha256: `sha256:${sha256Hex(written)}`,
    sizeBytes: written.length,
    manifest,
    manifestSha256: `sha256:${sha256Hex(manifestBytes)}`,
    skipped,
  };
}

function treeOf(input: PackInput): { entries: TarEntry[]; skipped: SkippedEntry[] } {
  if ((input.stateDir === undefined) === (input.files === undefined))
    throw new InvalidInputError("stateDir", "give exactly one of stateDir and files");
  if (input.stateDir !== undefined) return readStateTree(input.stateDir);
  const entries: TarEntry[] = [];
  const dirs = new Set<string>();
  for (const f of input.files ?? []) {
    const parts = checkEntryPath(f.path).split("/");
    // Parents become directory entries, so a restore makes the same tree a directory walk would have packed.
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    entries.push({ path: f.path, type: "file", data: f.data });
  }
  for (const dir of dirs) entries.push({ path: dir, type: "dir", data: Buffer.alloc(0) });
  return { entries: sortByPath(entries), skipped: [] };
}
