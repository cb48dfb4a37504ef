import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { runProgram } from "../../core/index.js";
import { chooseMicrovmAccel } from "../boot-probe.js";
import { PACKAGE_ROOT } from "../guest-runtime.js";
import { warmCompileCache } from "./compile-cache.js";
import { buildInitramfs, type CpioEntry } from "./cpio-archive.js";
import { bundleGuest, GUEST_BUNDLE_DIR, readGuestBundle } from "./guest-bundle.js";
import { type ImagePaths, imagePaths } from "./image-paths.js";
import { INITRAMFS_APPLETS, initramfsInit, TOOL_SANDBOX_FILE } from "./init-scripts.js";
import { unpackKernel } from "./kernel-extract.js";
import { GUEST_MODULES, resolveModules } from "./kernel-modules.js";
import { fetchKernel, resolveKernelPackage } from "./kernel-package.js";
import { MICROVM_SNAPSHOT_NAME, makeMicrovmSnapshot } from "./microvm-snapshot.js";
import { stageRootfs } from "./rootfs-stage.js";
import {
  defaultCellNodeOptions,
  makeStartupSnapshots,
  snapshotNodeOptions,
} from "./startup-snapshot-build.js";

export interface ImageManifest {
  built_at: string;
  kernel_package: string;
  kernel_version: string;
  /** `elf`: the vmlinux unpacked from the package's bzImage, booted through PVH; `bzimage`: as packaged. */
  kernel_format?: "elf" | "bzimage";
  modules: string[];
  node_version: string;
  runtime_packages: number;
  rootfs_bytes: number;
  initramfs_bytes: number;
  /** `made` when cells start from a snapshot made in the image's own VM, else why there is none. */
  startup_snapshot?: string;
  /** What the image's own boot found tools can run in (`bwrap` or `none`); absent: each boot probes. */
  tool_sandbox?: "bwrap" | "none";
  /**
   * `ready` when the rootfs has the helper a cell resumed from its saved memory needs (the clock, the kernel's
   * random state), else why not: its idle cells are then stopped rather than suspended.
   */
  resume?: string;
}

export interface BuildProgress {
  step: number;
  total: number;
  title: string;
  detail?: string;
}

export interface BuildOptions {
  paths?: ImagePaths;
  packageRoot?: string;
  /** Compile and bundle the runtime (tsc, then dist/cell) first; off when dist/cell is known to be fresh. */
  compile?: boolean;
  onProgress?: (progress: BuildProgress) => void;
  /** tmpfs size inside the guest (/tmp and the workspace share it) and the guest's process limit. */
  workspaceMiB?: number;
  maxProcesses?: number;
  /** The accelerator the snapshot VM boots under; `auto` chooses the way cells do (see chooseMicrovmAccel). */
  accel?: "auto" | "kvm" | "tcg";
}

const STEPS = [
  "resolve the kernel package",
  "download and unpack the kernel",
  "pick the virtio modules",
  "write the initramfs",
  "compile the runtime",
  "stage the root file system",
  "make the read-only ext4 image",
  "make the microVM's startup snapshot",
  "write the manifest",
];

/**
 * `ironclaw image build`: kernel from Debian's cloud kernel package, an initramfs with busybox and the virtio
 * modules, and a read-only ext4 rootfs with node and the compiled runtime. Each part is written to a temporary
 * name and renamed into place, so a failed build never leaves a half image where a cell would boot it.
 */
export async function buildImage(options: BuildOptions = {}): Promise<ImageManifest> {
  const paths = options.paths ?? imagePaths();
  const packageRoot = options.packageRoot ?? PACKAGE_ROOT;
  let step = 0;
  const progress = (detail?: string) =>
    options.onProgress?.({
      step,
      total: STEPS.length,
      title: STEPS[step - 1] ?? "",
      ...(detail ? { detail } : {}),
    });
  const next = (detail?: string) => {
    step++;
    progress(detail);
  };
  await mkdir(paths.cache, { recursive: true });
  const busybox = await requireTool(
    "busybox",
    ["/bin/busybox", "/usr/bin/busybox"],
    "apt-get install busybox-static",
  );
  await requireProgram("mkfs.ext4", ["-V"], "apt-get install e2fsprogs");

  next();
  const packageName = await resolveKernelPackage();
  next(packageName);
  const kernel = await fetchKernel(paths.cache, packageName);
  next(kernel.version);
  const modules = await resolveModules(kernel.modulesDir, GUEST_MODULES);

  next(`${modules.length} modules`);
  const entries: CpioEntry[] = ["bin", "dev", "proc", "sys", "lib", "lib/modules", "newroot"].map((path) => ({
    kind: "dir",
    path,
  }));
  entries.push({ kind: "file", path: "bin/busybox", data: await readFile(busybox), mode: 0o755 });
  for (const applet of INITRAMFS_APPLETS)
    entries.push({ kind: "symlink", path: `bin/${applet}`, target: "busybox" });
  for (const m of modules)
    entries.push({ kind: "file", path: `lib/modules/${m.name}.ko`, data: await readFile(m.file) });
  entries.push({
    kind: "file",
    path: "init",
    data: Buffer.from(initramfsInit(modules.map((m) => m.name))),
    mode: 0o755,
  });
  await writeFile(`${paths.initramfs}.tmp`, buildInitramfs(entries));

  next(options.compile === false ? "skipped" : "npm run build:js, then the inmate bundle");
  if (options.compile !== false) {
    const compiled = await runProgram(process.execPath, [join(packageRoot, "scripts/build-js.mjs")], 600_000);
    if (!existsSync(join(packageRoot, "dist/inmate/irowclaw.js"))) {
      throw new Error(`compiling the runtime failed:\n${(compiled.stdout + compiled.stderr).slice(0, 2000)}`);
    }
    const bundle = await bundleGuest({ packageRoot });
    // The guest runs this very node binary without flags: its code cache is made here, on the host. bwrap cells'
    // code cache and startup snapshot are made again too, since the bundle directory was just replaced.
    const made = (results: Array<{ ok: boolean; detail: string }>, what: string) => {
      const failed = results.find((r) => !r.ok);
      return `${results.filter((r) => r.ok).length} of ${results.length} ${what} made${failed ? ` (${failed.detail.split("\n")[0]})` : ""}`;
    };
    progress(made(await warmCompileCache(bundle.dir, defaultCellNodeOptions()), "code caches"));
    progress(
      made(await makeStartupSnapshots(packageRoot, bundle.dir, snapshotNodeOptions()), "startup snapshots"),
    );
  } else if (!(await readGuestBundle(join(packageRoot, GUEST_BUNDLE_DIR)))) {
    throw new Error(`no inmate bundle in ${join(packageRoot, GUEST_BUNDLE_DIR)}: run npm run build first`);
  }

  next();
  const stageDir = await mkdtemp(join(paths.cache, "stage-"));
  try {
    const { packages, resumeHelper } = await stageRootfs({
      stageDir,
      packageRoot,
      nodeBinary: process.execPath,
      busybox,
      workspaceMiB: options.workspaceMiB ?? 64,
      maxProcesses: options.maxProcesses ?? 256,
    });
    next(`${packages.length} packages`);
    await makeRootfs(stageDir, `${paths.rootfs}.tmp`);
    const unpacked = unpackKernel(await readFile(kernel.vmlinuz));
    if (unpacked.kind === "elf") await writeFile(`${paths.kernel}.tmp`, unpacked.data);
    else await copyFile(kernel.vmlinuz, `${paths.kernel}.tmp`);
    progress(unpacked.kind === "elf" ? `kernel unpacked (${unpacked.compression})` : unpacked.reason);

    next();
    // Booted from the parts just made, the way cells will boot them; the image holds the blob only when node
    // made it and started from it in there. Without it, cells start through the loader and its code cache.
    const building: ImagePaths = {
      ...paths,
      kernel: `${paths.kernel}.tmp`,
      initramfs: `${paths.initramfs}.tmp`,
      rootfs: `${paths.rootfs}.tmp`,
    };
    const blob = join(stageDir, "opt/ironclaw", GUEST_BUNDLE_DIR, MICROVM_SNAPSHOT_NAME);
    const snapshot = await makeMicrovmSnapshot({
      paths: building,
      bundleDir: join(packageRoot, GUEST_BUNDLE_DIR),
      accel: await chooseMicrovmAccel(options.accel ?? "auto", true, building),
      out: blob,
    });
    if (snapshot.ok) await chmod(blob, 0o644);
    if (snapshot.toolSandbox) {
      const file = join(stageDir, TOOL_SANDBOX_FILE);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, `${snapshot.toolSandbox}\n`, { mode: 0o644 });
    }
    if (snapshot.ok || snapshot.toolSandbox) await makeRootfs(stageDir, `${paths.rootfs}.tmp`);
    progress(
      `${snapshot.ok ? "" : "none: "}${snapshot.detail}; tool sandbox: ${snapshot.toolSandbox ?? "probed at each boot"} (${(snapshot.ms / 1000).toFixed(1)} s)`,
    );

    next();
    for (const part of [paths.kernel, paths.initramfs, paths.rootfs]) await rename(`${part}.tmp`, part);
    const manifest: ImageManifest = {
      built_at: new Date().toISOString(),
      kernel_package: packageName,
      kernel_version: kernel.version,
      kernel_format: unpacked.kind,
      modules: modules.map((m) => m.name),
      node_version: process.version,
      runtime_packages: packages.length,
      rootfs_bytes: (await stat(paths.rootfs)).size,
      initramfs_bytes: (await stat(paths.initramfs)).size,
      startup_snapshot: snapshot.ok ? "made" : snapshot.detail,
      ...(snapshot.toolSandbox ? { tool_sandbox: snapshot.toolSandbox } : {}),
      resume: resumeHelper.ok ? "ready" : resumeHelper.reason,
    };
    await writeFile(paths.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    await rm(stageDir, { recursive: true, force: true });
  }
}

/** The read-only ext4 rootfs from the staged tree, sized to it with room to spare. */
async function makeRootfs(stageDir: string, file: string): Promise<void> {
  const du = await runProgram("du", ["-sk", stageDir]);
  const usedKiB = Number(du.stdout.split("\t")[0]) || 512 * 1024;
  const sizeKiB = Math.ceil((usedKiB * 1.2 + 32 * 1024) / 4) * 4;
  await rm(file, { force: true });
  const mkfs = await runProgram(
    "mkfs.ext4",
    ["-q", "-F", "-L", "irc-root", "-O", "^has_journal", "-m", "0", "-d", stageDir, file, `${sizeKiB}k`],
    600_000,
  );
  if (!mkfs.ok) throw new Error(`mkfs.ext4 failed: ${mkfs.stderr.trim()}`);
}

async function requireTool(name: string, candidates: string[], hint: string): Promise<string> {
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`${name} not found (${candidates.join(", ")}): ${hint}`);
  return found;
}

async function requireProgram(name: string, args: string[], hint: string): Promise<void> {
  const run = await runProgram(name, args);
  if (run.error) throw new Error(`${name} not found: ${hint}`);
}
