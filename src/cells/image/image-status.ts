import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { ImageManifest } from "./image-builder.js";
import { type ImagePaths, imagePaths } from "./image-paths.js";

export interface ImageStatus {
  paths: ImagePaths;
  ready: boolean;
  missing: string[];
  manifest: ImageManifest | undefined;
}

/** Whether a bootable image is in place, and what it was built from. */
export async function readImageStatus(paths: ImagePaths = imagePaths()): Promise<ImageStatus> {
  const missing = [paths.kernel, paths.initramfs, paths.rootfs, paths.manifest].filter((p) => !existsSync(p));
  let manifest: ImageManifest | undefined;
  try {
    manifest = JSON.parse(await readFile(paths.manifest, "utf8")) as ImageManifest;
  } catch {
    manifest = undefined;
  }
  return { paths, ready: missing.length === 0 && manifest !== undefined, missing, manifest };
}
