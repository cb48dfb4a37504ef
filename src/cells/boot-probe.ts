import { runProgram } from "../core/index.js";
import { CellStartError } from "./cell.js";
import { tcgClockParams } from "./guest-clock.js";
import { probeAccelerator } from "./host-probe.js";
import type { ImagePaths } from "./image/image-paths.js";
import { BOOT_PROBE_MARK } from "./image/init-scripts.js";

export interface BootProbe {
  accel: "kvm" | "tcg";
  booted: boolean;
  ms: number;
  detail: string;
}

/**
 * Boots the image's real kernel and initramfs until the virtio modules are loaded, then powers off. This is
 * the test that counts for `auto`: nested hypervisors can pass simple vCPU probes and still hang a stock
 * kernel during early boot.
 */
export async function probeKernelBoot(
  paths: ImagePaths,
  accel: "kvm" | "tcg",
  timeoutMs = 20_000,
): Promise<BootProbe> {
  const started = Date.now();
  const run = await runProgram(
    "qemu-system-x86_64",
    [
      ...[
        "-accel",
        accel,
        "-M",
        "microvm",
        "-m",
        "128",
        "-nodefaults",
        "-no-user-config",
        "-display",
        "none",
      ],
      ...["-no-reboot", "-serial", "stdio", "-kernel", paths.kernel, "-initrd", paths.initramfs],
      ...[
        "-append",
        ["console=ttyS0 quiet panic=-1 ironclaw.probe=1", ...(accel === "tcg" ? tcgClockParams() : [])].join(
          " ",
        ),
      ],
    ],
    timeoutMs,
  );
  const ms = Date.now() - started;
  if (run.stdout.includes(BOOT_PROBE_MARK))
    return { accel, booted: true, ms, detail: `kernel booted in ${ms} ms` };
  const why = run.timedOut
    ? `no boot within ${timeoutMs} ms`
    : run.error || run.stderr.trim().split("\n")[0] || `exit ${run.code}`;
  return { accel, booted: false, ms, detail: why };
}

/**
 * The accelerator a microVM runs under: `auto` takes KVM when the image's kernel really boots under it, else
 * TCG where allowed. The image build boots its snapshot VM the same way, so the two agree on the CPU.
 */
export async function chooseMicrovmAccel(
  setting: "auto" | "kvm" | "tcg",
  allowTcg: boolean,
  paths: ImagePaths,
): Promise<"kvm" | "tcg"> {
  if (setting !== "auto") return setting;
  const kvm = await probeAccelerator("kvm");
  // The vCPU probe is cheap but not enough: nested hypervisors pass it and still hang a real kernel.
  const boots = kvm.usable ? await probeKernelBoot(paths, "kvm") : undefined;
  if (boots?.booted) return "kvm";
  if (allowTcg) return "tcg";
  throw new CellStartError(
    `KVM is not usable (${boots?.detail ?? kvm.detail}) and TCG is not allowed ([cells] allow_tcg)`,
  );
}
