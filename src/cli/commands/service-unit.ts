import { statSync } from "node:fs";
import { basename } from "node:path";
import { SCRATCH_ROOT, STAGE_ROOT } from "../../cells/index.js";
import type { CellBackendSetting } from "../../contracts/index.js";

export const UNIT_NAME = "ironclaw.service";

export interface UnitSettings {
  /** The node binary and the CLI's entry, both absolute. */
  node: string;
  entry: string;
  home: string;
  envFile: string;
  /** Folders outside the home the warden writes ([storage] users_dir set elsewhere). */
  writable: readonly string[];
  backend: CellBackendSetting;
  /** A user unit (`systemctl --user`): the warden runs as that user, not as root. */
  user: boolean;
  /** Whether /usr/bin/bwrap (or the one on PATH) carries the setuid bit. */
  bwrapSetuid: boolean;
}

const HOME_TREES = ["/home", "/root", "/run/user"];

/**
 * Whether the unit may say NoNewPrivileges=yes, and why. Under it no exec gains privileges from a setuid bit or
 * file capabilities. A root warden needs neither: it creates bwrap's namespaces, the cells' cgroups and their
 * uids itself, and QEMU runs without privileges. A user's warden running a setuid bwrap (distributions that
 * allow no unprivileged user namespaces ship it so) would lose the bit and with it every bwrap cell.
 */
export function noNewPrivileges(s: Pick<UnitSettings, "backend" | "user" | "bwrapSetuid">): {
  allowed: boolean;
  why: string;
} {
  if (!s.user)
    return {
      allowed: true,
      why: "the warden runs as root: bwrap's namespaces, the cells' cgroups and uids need no setuid helper, and QEMU needs no privilege",
    };
  if (s.backend === "microvm" || s.backend === "process")
    return { allowed: true, why: `the ${s.backend} backend runs no setuid program` };
  return s.bwrapSetuid
    ? {
        allowed: false,
        why: "bwrap on this host is setuid root (no unprivileged user namespaces): under NoNewPrivileges it would lose the bit and no bwrap cell could start",
      }
    : {
        allowed: true,
        why: "bwrap here is not setuid: it uses unprivileged user namespaces, which NoNewPrivileges leaves alone",
      };
}

/** True when `path` is (or lies under) one of `trees`. */
function under(path: string, trees: readonly string[]): boolean {
  return trees.some((tree) => path === tree || path.startsWith(`${tree}/`));
}

/** The systemd unit that runs `ironclaw serve` for this home, hardened as far as the cell backend allows. */
export function renderUnit(s: UnitSettings): string {
  const nnp = noNewPrivileges(s);
  // ProtectHome=yes hides /home, /root and /run/user whole; where the home, node or IronClaw itself lives there,
  // they are kept read-only instead, and the home is writable again through ReadWritePaths.
  const inHome = [s.home, s.node, s.entry, ...s.writable].some((p) => under(p, HOME_TREES));
  // A private /tmp would hide a home kept under /tmp (a trial install) from the warden itself.
  const inTmp = [s.home, ...s.writable].some((p) => under(p, ["/tmp", "/var/tmp"]));
  const quote = (p: string) => (/[\s"\\]/.test(p) ? JSON.stringify(p) : p);
  const lines = [
    "# Written by `ironclaw service install`; `ironclaw service uninstall` removes it.",
    "[Unit]",
    "Description=IronClaw warden (ironclawd): every user's agent in its own cell",
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${quote(s.node)} ${quote(s.entry)} serve`,
    `Environment=IRONCLAW_HOME=${quote(s.home)}`,
    "Environment=NODE_ENV=production",
    // No EnvironmentFile=: ironclaw serve reads the keys from ironclawd.env into its own settings; in the
    // process's environment every program the warden starts (QEMU, git, a process cell) would inherit them.
    `# Provider keys and channel tokens: ironclaw serve reads ${s.envFile} (0600, no cell mounts it) itself.`,
    `WorkingDirectory=${quote(s.home)}`,
    "Restart=on-failure",
    "RestartSec=5s",
    "# SIGTERM stops every cell cleanly; a microVM may take a few seconds to save.",
    "TimeoutStopSec=60s",
    "KillMode=mixed",
    "",
    "# Hardening. The whole file system is read-only but for the home; /dev stays (KVM, loop devices for brain",
    "# images) and /sys/fs/cgroup stays writable (each cell gets its own cgroup).",
    "ProtectSystem=strict",
    `ReadWritePaths=${[s.home, ...s.writable].map(quote).join(" ")}`,
    inHome
      ? "# The home, node or IronClaw lies under /home, /root or /run/user: those are read-only, not hidden."
      : "# Nothing the warden needs lies under /home, /root or /run/user: hidden.",
    `ProtectHome=${inHome ? "read-only" : "yes"}`,
    ...(inTmp
      ? ["# The home lies under /tmp: a private /tmp would hide it.", "PrivateTmp=no"]
      : ["PrivateTmp=yes"]),
    ...(s.user
      ? []
      : [
          "# Where a root warden stages each bwrap cell's mounts and mounts command's order trees: /run is read-only",
          "# under ProtectSystem=strict, so systemd makes both, root's, for as long as the warden runs.",
          `RuntimeDirectory=${basename(STAGE_ROOT)} ${basename(SCRATCH_ROOT)}`,
          "RuntimeDirectoryMode=0755",
        ]),
    "ProtectKernelModules=yes",
    "ProtectKernelLogs=yes",
    "RestrictRealtime=yes",
    "LockPersonality=yes",
    `# NoNewPrivileges=${nnp.allowed ? "yes" : "no"}: ${nnp.why}.`,
    `NoNewPrivileges=${nnp.allowed ? "yes" : "no"}`,
    "",
    "[Install]",
    `WantedBy=${s.user ? "default.target" : "multi-user.target"}`,
  ];
  return `${lines.join("\n")}\n`;
}

/** Whether the bwrap found first on PATH carries the setuid bit. */
export function bwrapIsSetuid(path = process.env.PATH ?? "/usr/bin:/bin"): boolean {
  for (const dir of path.split(":")) {
    try {
      return (statSync(`${dir}/bwrap`).mode & 0o4000) !== 0;
    } catch {
      // not in this folder
    }
  }
  return false;
}
