import { existsSync } from "node:fs";
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { runProgram } from "../../core/index.js";

/** Debian's metapackage for the cloud kernel: few drivers, fast boot, virtio as modules. */
export const KERNEL_METAPACKAGE = "linux-image-cloud-amd64";

export interface UnpackedKernel {
  packageName: string;
  version: string;
  vmlinuz: string;
  modulesDir: string;
}

/** The versioned kernel package the metapackage depends on right now (resolved, never hard-coded). */
export async function resolveKernelPackage(metapackage = KERNEL_METAPACKAGE): Promise<string> {
  let run = await runProgram("apt-cache", ["depends", metapackage], 60_000);
  // A fresh machine may never have fetched the package lists; root can fetch them here.
  if (!/Depends:/.test(run.stdout) && process.getuid?.() === 0) {
    await runProgram("apt-get", ["update", "-qq"], 300_000);
    run = await runProgram("apt-cache", ["depends", metapackage], 60_000);
  }
  const name = /Depends:\s*(linux-image-\S+)/.exec(run.stdout)?.[1];
  if (!name) {
    throw new Error(
      `apt-cache could not resolve ${metapackage} (run apt-get update first): ${run.stderr.trim() || run.error || "no Depends line"}`,
    );
  }
  return name;
}

/** apt-get download + dpkg-deb -x into the cache; reuses an earlier unpack of the same package. */
export async function fetchKernel(cacheDir: string, packageName: string): Promise<UnpackedKernel> {
  const root = join(cacheDir, packageName);
  if (!existsSync(join(root, "boot"))) {
    const downloads = join(cacheDir, "debs");
    await mkdir(downloads, { recursive: true });
    const download = await runProgram(
      "sh",
      ["-c", `cd "${downloads}" && apt-get download "${packageName}"`],
      600_000,
    );
    if (!download.ok) throw new Error(`apt-get download ${packageName} failed: ${download.stderr.trim()}`);
    const deb = (await readdir(downloads)).find((f) => f.startsWith(`${packageName}_`) && f.endsWith(".deb"));
    if (!deb) throw new Error(`apt-get download left no ${packageName} .deb in ${downloads}`);
    const unpack = await runProgram("dpkg-deb", ["-x", join(downloads, deb), root], 300_000);
    if (!unpack.ok) throw new Error(`dpkg-deb -x ${deb} failed: ${unpack.stderr.trim()}`);
  }
  const vmlinuz = (await readdir(join(root, "boot"))).find((f) => f.startsWith("vmlinuz-"));
  if (!vmlinuz) throw new Error(`${packageName} has no boot/vmlinuz-*`);
  const version = vmlinuz.slice("vmlinuz-".length);
  const libDir = existsSync(join(root, "lib/modules")) ? "lib/modules" : "usr/lib/modules";
  return {
    packageName,
    version,
    vmlinuz: join(root, "boot", vmlinuz),
    modulesDir: join(root, libDir, version),
  };
}
