import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildImage, imagePaths, readImageStatus } from "../../cells/index.js";
import { ironclawHome } from "../../core/index.js";
import { type CliCommand, println, UsageError } from "../command.js";

const usage = `Usage: ironclaw image build [--dir <dir>] [--no-compile]
       ironclaw image status [--dir <dir>] [--json]

Builds the microVM cell image (kernel from Debian's linux-image-cloud-amd64, an initramfs with busybox and
the virtio modules, a read-only ext4 rootfs with node and the compiled runtime) into IRONCLAW_HOME/images,
or reports what is there. Needs apt-get, dpkg-deb, busybox-static and e2fsprogs.`;

export const imageCommand: CliCommand = {
  name: "image",
  summary: "build the microVM cell image or show its status",
  usage,
  async run(argv, io) {
    const [action, ...rest] = argv;
    const { values } = parseArgs({
      args: rest,
      options: { dir: { type: "string" }, json: { type: "boolean" }, "no-compile": { type: "boolean" } },
    });
    const paths = imagePaths(values.dir ?? join(ironclawHome(io.env), "images"));
    if (action === "status") {
      const status = await readImageStatus(paths);
      if (values.json) println(io.stdout, JSON.stringify(status, null, 2));
      else if (!status.ready)
        println(io.stdout, `no complete image in ${paths.dir}; missing: ${status.missing.join(", ")}`);
      else {
        const m = status.manifest;
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
        }
      }
      return status.ready ? 0 : 1;
    }
    if (action !== "build") throw new UsageError("expected build or status");
    const started = Date.now();
    const tty = (io.stderr as NodeJS.WriteStream).isTTY === true;
    const manifest = await buildImage({
      paths,
      compile: values["no-compile"] !== true,
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
    return 0;
  },
};
