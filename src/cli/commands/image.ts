import { join } from "node:path";
import { buildImage, imagePaths, readImageStatus } from "../../cells/index.js";
import { ironclawHome } from "../../core/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";

const DIR = {
  name: "dir",
  type: "string",
  valueName: "dir",
  description: "the image directory (default: $IRONCLAW_HOME/images)",
} as const;

/** What the image's cells start from: the snapshot made in its VM, or why they go through the loader. */
function snapshotLine(snapshot: string | undefined): string {
  if (snapshot === "made") return "cells start from a startup snapshot made in the image's own VM";
  return `cells start through the loader and its code cache (no startup snapshot${snapshot ? `: ${snapshot}` : ", built before they had one"})`;
}

function resumeLine(resume: string | undefined): string {
  if (resume === "ready") return "idle cells are suspended to disk and resume where they were";
  return `idle cells are stopped, not suspended (${resume ?? "the image was built before cells could be suspended"})`;
}

const build = defineCommand({
  name: "build",
  summary: "build the microVM cell image",
  description: `Builds the microVM cell image (kernel from Debian's linux-image-cloud-amd64, an initramfs with busybox and
the virtio modules, a read-only ext4 rootfs with node and the compiled runtime) into IRONCLAW_HOME/images,
then boots it once to make the runtime's startup snapshot inside it (a snapshot from the host's CPU would not
load in the VM). Needs apt-get, dpkg-deb, busybox-static, e2fsprogs and qemu-system-x86.`,
  options: [
    DIR,
    {
      name: "no-compile",
      type: "boolean",
      description: "skip compiling the runtime (tsc); use dist/ as it is",
    },
  ],
  async run({ options }, io) {
    const paths = imagePaths(imageDir(options.dir, io));
    const started = Date.now();
    const tty = (io.stderr as NodeJS.WriteStream).isTTY === true;
    const manifest = await buildImage({
      paths,
      compile: !options["no-compile"],
      onProgress: (p) => {
        const bar = `${"#".repeat(p.step)}${".".repeat(p.total - p.step)}`;
        const line = `[${bar}] ${p.step}/${p.total} ${p.title}${p.detail ? ` (${p.detail})` : ""}`;
        io.stderr.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
      },
    });
    if (tty) io.stderr.write("\n");
    println(
      io.stdout,
      `built the cell image in ${paths.dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    println(
      io.stdout,
      `  kernel ${manifest.kernel_version}, rootfs ${(manifest.rootfs_bytes / 1048576).toFixed(0)} MiB`,
    );
    println(io.stdout, `  ${snapshotLine(manifest.startup_snapshot)}`);
    println(io.stdout, `  ${resumeLine(manifest.resume)}`);
    return 0;
  },
});

const status = defineCommand({
  name: "status",
  summary: "what image is there: kernel, rootfs, when it was built (exit 1 when incomplete)",
  options: [DIR, jsonOption("the status")],
  async run({ options }, io) {
    const paths = imagePaths(imageDir(options.dir, io));
    const found = await readImageStatus(paths);
    if (options.json) println(io.stdout, JSON.stringify(found, null, 2));
    else if (!found.ready)
      println(io.stdout, `no complete image in ${paths.dir}; missing: ${found.missing.join(", ")}`);
    else {
      const m = found.manifest;
      println(io.stdout, `image in ${paths.dir}: ready`);
      if (m) {
        println(
          io.stdout,
          `  built ${m.built_at} with node ${m.node_version}, ${m.runtime_packages} runtime packages`,
        );
        println(
          io.stdout,
          `  kernel ${m.kernel_version} (${m.kernel_package}), modules ${m.modules.join(", ")}`,
        );
        println(
          io.stdout,
          `  rootfs ${(m.rootfs_bytes / 1048576).toFixed(0)} MiB, initramfs ${(m.initramfs_bytes / 1024).toFixed(0)} KiB`,
        );
        println(io.stdout, `  ${snapshotLine(m.startup_snapshot)}`);
        println(io.stdout, `  ${resumeLine(m.resume)}`);
      }
    }
    return found.ready ? 0 : 1;
  },
});

export const imageCommand = defineGroup({
  name: "image",
  summary: "build the microVM cell image or show its status",
  subcommands: [build, status],
});

function imageDir(dir: string | undefined, io: CliIo): string {
  return dir ?? join(ironclawHome(io.env), "images");
}
