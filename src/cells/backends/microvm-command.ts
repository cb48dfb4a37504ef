import { join } from "node:path";
import { tcgClockParams } from "../guest-clock.js";
import type { ImagePaths } from "../image/image-paths.js";
import { BRAIN_DISK_SERIAL, CHANNEL_PORT_NAME, ROOT_DISK_SERIAL } from "../image/init-scripts.js";

export interface MicrovmCommand {
  paths: ImagePaths;
  accel: "kvm" | "tcg";
  memoryMiB: number;
  cpus: number;
  userId: string;
  handler: string;
  maxFrameBytes?: number;
  brainFile: string;
  /** The unix socket the warden listens on; QEMU connects to it as the virtio-serial port's host side. */
  socketPath: string;
  /** Write the kernel console there, with the init's timings, instead of stdout. */
  consoleDir?: string;
}

/** The QEMU arguments of one microVM cell: `-M microvm`, its kernel, the read-only rootfs, the brain, the channel. */
export function microvmArgs(c: MicrovmCommand): string[] {
  const append = [
    "console=ttyS0",
    // A captured console also gets the init's timings (ironclaw.trace=1).
    ...(c.consoleDir ? ["ironclaw.trace=1"] : ["quiet"]),
    "panic=-1",
    // The crypto self-tests run every registered algorithm at boot (half a second under TCG): they check
    // the implementations once, they guard nothing while the cell runs.
    "cryptomgr.notests",
    ...(c.accel === "tcg" ? tcgClockParams() : []),
    `ironclaw.user=${c.userId}`,
    `ironclaw.handler=${c.handler}`,
    ...(c.maxFrameBytes ? [`ironclaw.maxframe=${c.maxFrameBytes}`] : []),
  ].join(" ");
  return [
    ...["-accel", c.accel, "-M", "microvm", "-m", String(c.memoryMiB), "-smp", String(c.cpus)],
    ...["-nodefaults", "-no-user-config", "-display", "none", "-no-reboot"],
    ...["-serial", c.consoleDir ? `file:${join(c.consoleDir, `${c.userId}.console.log`)}` : "stdio"],
    ...["-kernel", c.paths.kernel, "-initrd", c.paths.initramfs, "-append", append],
    ...["-drive", `id=root,file=${c.paths.rootfs},format=raw,if=none,readonly=on`],
    ...["-device", `virtio-blk-device,drive=root,serial=${ROOT_DISK_SERIAL}`],
    ...["-drive", `id=brain,file=${c.brainFile},format=raw,if=none`],
    ...["-device", `virtio-blk-device,drive=brain,serial=${BRAIN_DISK_SERIAL}`],
    ...["-object", "rng-random,id=rng,filename=/dev/urandom", "-device", "virtio-rng-device,rng=rng"],
    ...["-device", "virtio-serial-device", "-chardev", `socket,id=chan,path=${c.socketPath}`],
    ...["-device", `virtserialport,chardev=chan,name=${CHANNEL_PORT_NAME}`],
  ];
}
