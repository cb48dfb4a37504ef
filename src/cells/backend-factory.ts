import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { type IronclawdConfig, ironclawdConfigSchema } from "../contracts/cell/index.js";
import { ironclawHome, loadTomlConfig } from "../core/index.js";
import { type BackendChoice, chooseCellBackend } from "./backend-choice.js";
import { createBwrapBackend } from "./backends/bwrap.js";
import { createMicrovmBackend } from "./backends/microvm.js";
import { createProcessBackend } from "./backends/process.js";
import { probeKernelBoot } from "./boot-probe.js";
import type { CellBackend } from "./cell.js";
import { probeAccelerator, probeBwrap, probeQemuMicrovm } from "./host-probe.js";
import { type ImagePaths, imagePaths } from "./image/image-paths.js";

/** IRONCLAW_HOME/ironclawd.toml, or the defaults when there is none. */
export function loadHostConfig(home = ironclawHome()): IronclawdConfig {
  const file = join(home, "ironclawd.toml");
  return existsSync(file) ? loadTomlConfig(file, ironclawdConfigSchema) : ironclawdConfigSchema.parse({});
}

/** Where users' brains live: [storage] users_dir, relative to IRONCLAW_HOME. */
export function usersDir(config: IronclawdConfig, home = ironclawHome()): string {
  const dir = config.storage.users_dir;
  return isAbsolute(dir) ? dir : join(config.storage.home ?? home, dir);
}

/** The image the config names, part by part, else the one built into IRONCLAW_HOME/images. */
export function configuredImage(config: IronclawdConfig, home = ironclawHome()): ImagePaths {
  const built = imagePaths(join(home, "images"));
  const at = (p: string | undefined, fallback: string) =>
    p === undefined ? fallback : isAbsolute(p) ? p : join(home, p);
  return {
    ...built,
    kernel: at(config.cells.kernel, built.kernel),
    initramfs: at(config.cells.initramfs, built.initramfs),
    rootfs: at(config.cells.rootfs, built.rootfs),
  };
}

/** Resolves [cells] backend (auto included) to a backend, with the reason it was chosen. */
export async function createConfiguredBackend(
  config: IronclawdConfig,
  options: { home?: string; onWarning?: (warning: string) => void } = {},
): Promise<{ backend: CellBackend; choice: BackendChoice }> {
  const setting = config.cells.backend;
  let choice: BackendChoice;
  // What the probes below found out about KVM, so that a microVM backend need not probe again at its first start.
  let accel: "auto" | "kvm" | "tcg" = "auto";
  if (setting === "auto") {
    const [bwrap, qemu] = await Promise.all([probeBwrap(), probeQemuMicrovm()]);
    const [kvm, tcg] = qemu.microvm
      ? await Promise.all([probeAccelerator("kvm"), probeAccelerator("tcg")])
      : [undefined, undefined];
    // Where an image exists, KVM must also boot its real kernel (see probeKernelBoot).
    const image = configuredImage(config, options.home);
    const boots = kvm?.usable && existsSync(image.kernel) ? await probeKernelBoot(image, "kvm") : undefined;
    accel = kvm?.usable === true && boots?.booted !== false ? "kvm" : "tcg";
    choice = chooseCellBackend(
      {
        kvmUsable: kvm?.usable === true && boots?.booted !== false,
        tcgUsable: tcg?.usable === true,
        qemuMicrovm: qemu.microvm,
        bwrapUsable: bwrap.usable,
      },
      { allowTcg: config.cells.allow_tcg, allowProcess: config.cells.allow_process },
    );
  } else {
    choice = { backend: setting, reason: `[cells] backend = "${setting}"` };
  }
  const common = options.onWarning ? { onWarning: options.onWarning } : {};
  switch (choice.backend) {
    case "microvm": {
      const backend = createMicrovmBackend({
        paths: configuredImage(config, options.home),
        accel,
        allowTcg: config.cells.allow_tcg || setting === "microvm",
        suspend: config.cells.suspend_idle,
        ...common,
      });
      // Where [cells] backend names microvm, KVM is probed now rather than during the first user's first start
      // (seconds where nested KVM hangs); a refusal is kept and reported by that start.
      backend.accel().catch(() => undefined);
      return { choice, backend };
    }
    case "bwrap":
      // Cells bind the word table of this host's home, built there once.
      return {
        choice,
        backend: createBwrapBackend({ embeddingsHome: options.home ?? ironclawHome(), ...common }),
      };
    case "process":
      return { choice, backend: createProcessBackend(common) };
    default:
      throw new Error(`no cell backend: ${choice.reason}`);
  }
}
