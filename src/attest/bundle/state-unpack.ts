import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { bundleLocatorContract, normalizeSha256, parseContract } from "../../contracts/index.js";
import { canonicalBytes, InvalidInputError, IronclawError, sha256Hex } from "../../core/index.js";
import { decryptBundle } from "./bundle-cipher.js";
import { type BundleManifest, bundleManifestSchema, checkAgainstManifest } from "./bundle-manifest.js";
import { LOCATOR_FILE } from "./bundle-outputs.js";
import { BUNDLE_FILE, MANIFEST_ENTRY, TREE_DIR } from "./state-pack.js";
import { readTar, type TarEntry } from "./ustar.js";

/** The encrypted bytes are not the ones the locator names: checked before anything is decrypted. */
export class BundleHashError extends IronclawError {
  override readonly name = "BundleHashError";
  constructor(message: string) {
    super("bundle_hash_mismatch", message);
  }
}

export interface UnpackedState {
  stateId: string | undefined;
  ratchetStep: number | undefined;
  manifest: BundleManifest;
  manifestSha256: string;
  files: number;
  bytes: number;
}

/**
 * Restores a bundle folder (`state_bundle.tar.enc` + `bundle_locator_next.json`) into `targetDir`, which must be
 * missing or empty. In this order, each refusal naming its check: bundle_sha256 over the encrypted bytes, then
 * AES-256-GCM authentication, then the tar's entries (only plain files and directories inside the target),
 * then the manifest's digest and every entry against it. Nothing is written until all of them pass.
 */
export async function unpackState(bundleDir: string, key: Buffer, targetDir: string): Promise<UnpackedState> {
  const locator = parseContract(
    bundleLocatorContract,
    await readJsonFile(join(bundleDir, LOCATOR_FILE), LOCATOR_FILE),
  );
  const sealed = await readFile(join(bundleDir, BUNDLE_FILE));
  const actual = `sha256:${sha256Hex(sealed)}`;
  const expected = normalizeSha256(locator.bundle_sha256);
  if (actual !== expected)
    throw new BundleHashError(
      `bundle_sha256 check failed: ${BUNDLE_FILE} hashes to ${actual}, but ${LOCATOR_FILE} names ${expected}; the bundle is not the one that was written`,
    );
  const entries = readTar(decryptBundle(sealed, key));
  const { manifest, manifestSha256, tree } = splitBundle(entries);
  if (locator.manifest_sha256 !== undefined && normalizeSha256(locator.manifest_sha256) !== manifestSha256)
    throw new InvalidInputError(
      "manifest.json",
      `hashes to ${manifestSha256}, not the locator's manifest_sha256`,
    );
  checkAgainstManifest(manifest, tree);
  await prepareEmptyTarget(targetDir);
  let bytes = 0;
  for (const entry of tree) {
    const path = join(targetDir, entry.path);
    if (entry.type === "dir") {
      await mkdir(path, { recursive: true, mode: 0o700 });
      continue;
    }
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, entry.data, { mode: 0o600, flag: "wx" });
    bytes += entry.data.length;
  }
  return {
    stateId: locator.state_id,
    ratchetStep: locator.ratchet_step,
    manifest,
    manifestSha256,
    files: tree.filter((e) => e.type === "file").length,
    bytes,
  };
}

function splitBundle(entries: TarEntry[]) {
  const [first, ...rest] = entries;
  if (first?.path !== MANIFEST_ENTRY || first.type !== "file")
    throw new InvalidInputError("bundle entry manifest.json", "must be the bundle's first entry");
  const parsed = bundleManifestSchema.safeParse(parseJson(first.data.toString("utf8"), MANIFEST_ENTRY));
  if (!parsed.success)
    throw new InvalidInputError("manifest.json", parsed.error.issues[0]?.message ?? "is invalid");
  if (!canonicalBytes(parsed.data).equals(first.data))
    throw new InvalidInputError("manifest.json", "is not in canonical JSON form");
  const tree: TarEntry[] = [];
  for (const entry of rest) {
    if (entry.path === TREE_DIR && entry.type === "dir") continue;
    if (!entry.path.startsWith(`${TREE_DIR}/`))
      throw new InvalidInputError(
        `bundle entry ${entry.path}`,
        `lies outside ${TREE_DIR}/, where a bundle keeps the brain`,
      );
    tree.push({ ...entry, path: entry.path.slice(TREE_DIR.length + 1) });
  }
  return { manifest: parsed.data, manifestSha256: `sha256:${sha256Hex(first.data)}`, tree };
}

async function prepareEmptyTarget(dir: string): Promise<void> {
  const existing = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (existing && existing.length > 0)
    throw new InvalidInputError(
      "target",
      `${dir} is not empty; a bundle is restored only into an empty directory`,
    );
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/** A JSON file of the bundle folder; missing or malformed, refused naming it. */
export async function readJsonFile(file: string, shown: string): Promise<unknown> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new InvalidInputError(
      shown,
      error.code === "ENOENT" ? "is missing from the bundle folder" : error.message,
    );
  });
  return parseJson(text, shown);
}

function parseJson(text: string, shown: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new InvalidInputError(shown, `is not JSON: ${(cause as Error).message}`, { cause });
  }
}
