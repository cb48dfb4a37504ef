import { homedir } from "node:os";
import { join, resolve } from "node:path";

export interface ImagePaths {
  dir: string;
  kernel: string;
  initramfs: string;
  rootfs: string;
  manifest: string;
  /** Downloads and unpacked packages, kept between builds. */
  cache: string;
}

/** IRONCLAW_HOME (default ~/.ironclaw), as the architecture lays it out. */
export function ironclawHome(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.IRONCLAW_HOME ?? join(homedir(), ".ironclaw"));
}

export function imagePaths(dir = join(ironclawHome(), "images")): ImagePaths {
  return {
    dir,
    kernel: join(dir, "vmlinuz"),
    initramfs: join(dir, "initramfs.cpio.gz"),
    rootfs: join(dir, "rootfs.ext4"),
    manifest: join(dir, "manifest.json"),
    cache: join(dir, "cache"),
  };
}
