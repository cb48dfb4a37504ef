import { accessSync, constants, existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProgram } from "../core/index.js";

export const QEMU_BINARY = "qemu-system-x86_64";

/**
 * A 64 KiB firmware image that switches the virtual CPU from real mode into 32-bit protected mode, then writes
 * 0x31 to the isa-debug-exit port. QEMU exits with status (0x31 << 1) | 1 = 99 only if the vCPU really ran
 * protected-mode code. Real-mode-only probes are not enough: nested hypervisors such as PVM emulate real mode
 * but hang at the protected-mode switch, exactly where a stock Linux kernel hangs after "Probing EDD".
 */
export function debugExitFirmware(): Buffer {
  const image = Buffer.alloc(64 * 1024, 0xf4); // hlt everywhere
  const put = (offset: number, bytes: number[]) => Buffer.from(bytes).copy(image, offset);
  // Reset vector (CS base 0xffff0000, IP 0xfff0): jmp near 0xf000.
  put(0xfff0, [0xe9, 0x0d, 0xf0]);
  // cli; o32 lgdt cs:[0xf100]; mov eax, cr0; or al, 1; mov cr0, eax; jmp dword 0x08:0xfffff020
  put(
    0xf000,
    [0xfa, 0x2e, 0x66, 0x0f, 0x01, 0x16, 0x00, 0xf1, 0x0f, 0x20, 0xc0, 0x0c, 0x01, 0x0f, 0x22, 0xc0],
  );
  put(0xf010, [0x66, 0xea, 0x20, 0xf0, 0xff, 0xff, 0x08, 0x00]);
  // 32-bit: mov al, 0x31; out 0xf4, al; hlt; jmp $-1
  put(0xf020, [0xb0, 0x31, 0xe6, 0xf4, 0xf4, 0xeb, 0xfd]);
  // GDT pointer (limit 0x17, base 0xfffff108) and a flat GDT: null, code32, data32.
  put(0xf100, [0x17, 0x00, 0x08, 0xf1, 0xff, 0xff]);
  put(
    0xf108,
    [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0x9a, 0xcf, 0, 0xff, 0xff, 0, 0, 0, 0x92, 0xcf, 0],
  );
  return image;
}
export const DEBUG_EXIT_STATUS = 99;

export interface AccelProbe {
  accel: "kvm" | "tcg";
  usable: boolean;
  detail: string;
}

/** Boots the debug-exit firmware under one accelerator and reports whether guest code ran. */
export async function probeAccelerator(accel: "kvm" | "tcg", timeoutMs = 3_000): Promise<AccelProbe> {
  if (accel === "kvm") {
    if (!existsSync("/dev/kvm")) return { accel, usable: false, detail: "/dev/kvm does not exist" };
    try {
      accessSync("/dev/kvm", constants.R_OK | constants.W_OK);
    } catch {
      return { accel, usable: false, detail: "/dev/kvm is not readable and writable by this user" };
    }
  }
  const dir = await mkdtemp(join(tmpdir(), "ironclaw-probe-"));
  try {
    const firmware = join(dir, "probe.bin");
    await writeFile(firmware, debugExitFirmware());
    const run = await runProgram(
      QEMU_BINARY,
      [
        ...["-accel", accel, "-M", "pc", "-m", "16", "-nodefaults", "-no-user-config", "-display", "none"],
        ...["-bios", firmware, "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-no-reboot"],
      ],
      timeoutMs,
    );
    if (run.error) return { accel, usable: false, detail: `${QEMU_BINARY} could not run: ${run.error}` };
    if (run.code === DEBUG_EXIT_STATUS)
      return { accel, usable: true, detail: "a guest vCPU ran protected-mode code" };
    const why = run.timedOut
      ? `the guest vCPU did not reach protected mode within ${timeoutMs} ms (nested or paravirtual KVM?)`
      : firstLine(run.stderr) || `exit ${run.code}`;
    return { accel, usable: false, detail: why };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}

/** Whether bubblewrap can really build a sandbox here (a binary without user namespaces is useless). */
export async function probeBwrap(): Promise<{ usable: boolean; detail: string }> {
  const version = await runProgram("bwrap", ["--version"]);
  if (!version.ok) return { usable: false, detail: "bwrap not found" };
  const sandbox = await runProgram("bwrap", [
    ...["--unshare-all", "--unshare-user", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev"],
    ...["--proc", "/proc", "--", "/bin/true"],
  ]);
  return sandbox.ok
    ? { usable: true, detail: `${version.stdout.trim()}, namespaces work` }
    : {
        usable: false,
        detail: `${version.stdout.trim()} cannot create a sandbox: ${firstLine(sandbox.stderr) || `exit ${sandbox.code}`}`,
      };
}

/** Whether QEMU is installed with the microvm machine type. */
export async function probeQemuMicrovm(): Promise<{ binary: boolean; microvm: boolean; detail: string }> {
  const version = await runProgram(QEMU_BINARY, ["--version"]);
  if (!version.ok) return { binary: false, microvm: false, detail: `${QEMU_BINARY} not found` };
  const machines = await runProgram(QEMU_BINARY, ["-M", "help"]);
  const microvm = /^microvm\s/m.test(machines.stdout);
  return { binary: true, microvm, detail: firstLine(version.stdout) };
}
