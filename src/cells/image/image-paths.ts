import { join } from "node:path";
import { ironclawHome } from "../../core/index.js";

export interface ImagePaths {
  dir: string;
  kernel: string;
  initramfs: string;
  rootfs: string;
  manifest: string;
  /** Downloads and unpacked packages, kept between builds. */
  cache: string;
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
