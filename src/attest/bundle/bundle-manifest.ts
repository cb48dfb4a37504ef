import { z } from "zod";
import { InvalidInputError, sha256Hex } from "../../core/index.js";
import type { TarEntry } from "./ustar.js";

/**
 * What a state bundle holds, entry by entry: the brain's tree with each file's size and sha256. Only the tree
 * is in it (no state id, no step, no time), so its digest names a brain's content wherever it was packed.
 */
export const bundleManifestSchema = z.strictObject({
  schema_version: z.literal("ironclaw-bundle-manifest-v1"),
  entries: z.array(
    z.discriminatedUnion("type", [
      z.strictObject({ path: z.string().min(1), type: z.literal("dir") }),
      z.strictObject({
        path: z.string().min(1),
        type: z.literal("file"),
        size: z.int().min(0),
        sha256: z.string().regex(/^sha256:[0-9a-f]{64}$/),
      }),
    ]),
  ),
});

export type BundleManifest = z.output<typeof bundleManifestSchema>;

export function manifestOf(entries: readonly TarEntry[]): BundleManifest {
  return {
    schema_version: "ironclaw-bundle-manifest-v1",
    entries: entries.map((e) =>
      e.type === "dir"
        ? { path: e.path, type: "dir" as const }
        : { path: e.path, type: "file" as const, size: e.data.length, sha256: `sha256:${sha256Hex(e.data)}` },
    ),
  };
}

/** Refuses a tree that is not exactly the manifest: an entry missing, added, of another type, size or hash. */
export function checkAgainstManifest(manifest: BundleManifest, entries: readonly TarEntry[]): void {
  const listed = new Map(manifest.entries.map((e) => [e.path, e]));
  if (listed.size !== manifest.entries.length)
    throw new InvalidInputError("manifest.entries", "lists a path twice");
  for (const entry of entries) {
    const expected = listed.get(entry.path);
    if (!expected)
      throw new InvalidInputError(`bundle entry ${entry.path}`, "is not in the bundle's manifest");
    listed.delete(entry.path);
    if (expected.type !== entry.type)
      throw new InvalidInputError(
        `bundle entry ${entry.path}`,
        `is a ${entry.type}; the manifest lists a ${expected.type}`,
      );
    if (expected.type === "file" && expected.sha256 !== `sha256:${sha256Hex(entry.data)}`)
      throw new InvalidInputError(`bundle entry ${entry.path}`, "does not match its sha256 in the manifest");
  }
  const missing = [...listed.keys()][0];
  if (missing !== undefined)
    throw new InvalidInputError(`bundle entry ${missing}`, "is in the manifest but missing from the bundle");
}
