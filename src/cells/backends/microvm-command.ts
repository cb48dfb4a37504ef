import { join } from "node:path";
import { tcgClockParams } from "../guest-clock.js";
import type { ImagePaths } from "../image/image-paths.js";
import {
  BRAIN_DISK_SERIAL,
  CHANNEL_PORT_NAME,
  CONTROL_PORT_NAME,
  ROOT_DISK_SERIAL,
  SKILLS_DISK_SERIAL,
} from "../image/init-scripts.js";

export interface MicrovmCommand {
  paths: ImagePaths;
  accel: "kvm" | "tcg";
  memoryMiB: number;
  cpus: number;
  userId: string;
  handler: string;
  maxFrameBytes?: number;
  brainFile: string;
  /** The user's installed skills as a disk (skills-disk.ts), attached read-only; absent when they have none. */
  skillsFile?: string;
  /**
   * The unix socket the warden listens on; QEMU connects to it as the virtio-serial port's host side. The
   * image build's snapshot boot has none: its port leads nowhere.
   */
  socketPath?: string;
  /** The unix socket of the control port (root's in the guest: sync before a save, clock after a restore). */
  controlSocketPath?: string;
  /** QEMU's human monitor listens here: the warden stops and saves the VM through it. */
  monitorPath?: string;
  /** Restore the VM saved in this file instead of booting it (QEMU `-incoming`); it runs once loaded. */
  incomingFile?: string;
  /** `snapshot`: the image build's boot that makes the startup snapshot on the brain disk, then powers off. */
  build?: "snapshot";
  /** Write the kernel console there, with the init's timings, instead of stdout. */
  consoleDir?: string;
}

/**
 * Under TCG the guest kernel's speculative-execution mitigations (retpolines, return thunks, buffer clears)
 * guard nothing: they are written for a CPU that runs the guest's instructions, and here QEMU translates
 * them, so a guest \`ret\` becomes a lookup and a jump of QEMU's own. They only make every emulated call
 * slower: ~0.1 s of a boot. Under KVM they stay on.
 */
const TCG_PARAMS = ["mitigations=off"];

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
    ...(c.accel === "tcg" ? [...TCG_PARAMS, ...tcgClockParams()] : []),
    `ironclaw.user=${c.userId}`,
    `ironclaw.handler=${c.handler}`,
    ...(c.maxFrameBytes ? [`ironclaw.maxframe=${c.maxFrameBytes}`] : []),
    ...(c.build ? [`ironclaw.build=${c.build}`] : []),
    ...(c.skillsFile ? ["ironclaw.skills=1"] : []),
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
    ...(c.skillsFile
      ? [
          ...["-drive", `id=skills,file=${c.skillsFile},format=raw,if=none,readonly=on`],
          ...["-device", `virtio-blk-device,drive=skills,serial=${SKILLS_DISK_SERIAL}`],
        ]
      : []),
    ...["-object", "rng-random,id=rng,filename=/dev/urandom", "-device", "virtio-rng-device,rng=rng"],
    ...["-device", "virtio-serial-device"],
    ...["-chardev", c.socketPath ? `socket,id=chan,path=${c.socketPath}` : "null,id=chan"],
    ...["-device", `virtserialport,chardev=chan,name=${CHANNEL_PORT_NAME}`],
    ...["-chardev", c.controlSocketPath ? `socket,id=ctl,path=${c.controlSocketPath}` : "null,id=ctl"],
    ...["-device", `virtserialport,chardev=ctl,name=${CONTROL_PORT_NAME}`],
    ...(c.monitorPath ? ["-monitor", `unix:${c.monitorPath},server,nowait`] : []),
    // A VM is saved stopped; without the run state in the stream, the VM restored from it runs once loaded.
    ...["-global", "migration.store-global-state=off"],
    ...(c.incomingFile ? ["-incoming", `exec:cat ${shellQuote(c.incomingFile)}`] : []),
  ];
}

/** QEMU runs an `exec:` migration URI through /bin/sh: a path in one is quoted for it. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
