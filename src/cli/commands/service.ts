import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadHostConfig, runProgram, usersDir } from "../../cells/index.js";
import { ironclawHome } from "../../core/index.js";
import { hostEnvFile, writeHostEnv } from "../../warden/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, defineGroup } from "../command-spec.js";
import { bwrapIsSetuid, noNewPrivileges, renderUnit, UNIT_NAME } from "./service-unit.js";

/** bin/ironclaw.js of this installation, from src/cli/commands/ or dist/cli/commands/ alike. */
const ENTRY = fileURLToPath(new URL("../../../bin/ironclaw.js", import.meta.url));

const UNIT_DIR = {
  name: "unit-dir",
  type: "string",
  valueName: "dir",
  description:
    "where the unit file goes (default /etc/systemd/system, or ~/.config/systemd/user with --user); elsewhere, systemctl is not run",
} as const;
const USER = {
  name: "user",
  type: "boolean",
  description: "a user unit (systemctl --user): the warden runs as you, not as root",
} as const;

export interface ServicePlace {
  user: boolean;
  unitDir: string;
  /** The unit dir is the one systemd reads and systemd runs here: systemctl can be called. */
  managed: boolean;
}

/** Where the unit goes and whether this host's systemd is there to take it. */
export function servicePlace(
  io: CliIo,
  options: { user: boolean; "unit-dir"?: string | undefined },
): ServicePlace {
  const standard = options.user
    ? join(io.env.XDG_CONFIG_HOME || join(io.env.HOME || homedir(), ".config"), "systemd/user")
    : "/etc/systemd/system";
  const unitDir = resolve(io.cwd, options["unit-dir"] ?? standard);
  const running = options.user
    ? io.env.XDG_RUNTIME_DIR !== undefined && existsSync(join(io.env.XDG_RUNTIME_DIR, "systemd/private"))
    : existsSync("/run/systemd/system");
  return { user: options.user, unitDir, managed: running && unitDir === standard };
}

/** `systemctl [--user] …` as a person types it. */
function systemctl(place: ServicePlace, ...args: string[]): string[] {
  return ["systemctl", ...(place.user ? ["--user"] : []), ...args];
}

function logsCommand(place: ServicePlace): string {
  return `journalctl ${place.user ? "--user " : ""}-u ironclaw -f`;
}

/**
 * Writes the unit for this IRONCLAW_HOME (and its env file, empty and 0600, when there is none yet), then has
 * systemd load and start it where systemd runs; elsewhere prints the commands. Returns the exit code.
 */
export async function installService(io: CliIo, place: ServicePlace): Promise<number> {
  const home = ironclawHome(io.env);
  const config = loadHostConfig(home);
  const envFile = hostEnvFile(home);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (!existsSync(envFile)) writeHostEnv(home, {});
  const users = usersDir(config, home);
  const settings = {
    node: process.execPath,
    entry: ENTRY,
    home,
    envFile,
    writable: users.startsWith(`${home}/`) ? [] : [users],
    backend: config.cells.backend,
    user: place.user,
    bwrapSetuid: bwrapIsSetuid(io.env.PATH),
  };
  const unitFile = join(place.unitDir, UNIT_NAME);
  const replaced = existsSync(unitFile);
  mkdirSync(place.unitDir, { recursive: true });
  writeFileSync(unitFile, renderUnit(settings), { mode: 0o644 });
  println(io.stdout, `${replaced ? "replaced" : "wrote"} ${unitFile} (ironclaw serve for ${home})`);
  const nnp = noNewPrivileges(settings);
  println(io.stdout, `NoNewPrivileges=${nnp.allowed ? "yes" : "no"}: ${nnp.why}`);
  // restart, not enable --now: a warden already running takes the new unit too (after moving IronClaw).
  const steps = [
    systemctl(place, "daemon-reload"),
    systemctl(place, "enable", UNIT_NAME),
    systemctl(place, "restart", UNIT_NAME),
  ];
  if (!place.managed) {
    println(
      io.stdout,
      place.unitDir.startsWith("/etc/") || place.unitDir.endsWith("systemd/user")
        ? "systemd is not running on this host; where it runs, start the service with:"
        : "this folder is not one systemd reads; copy the unit into one, then:",
    );
    for (const step of steps) println(io.stdout, `  ${step.join(" ")}`);
    println(io.stdout, `Logs: ${logsCommand(place)}`);
    return 0;
  }
  for (const [cmd, ...args] of steps) {
    const run = await runProgram(cmd ?? "systemctl", args, 60_000);
    if (!run.ok) {
      println(io.stderr, `${[cmd, ...args].join(" ")} failed: ${(run.stderr || run.error || "").trim()}`);
      return 1;
    }
  }
  println(io.stdout, `started: ${systemctl(place, "status", "ironclaw").join(" ")} shows how it runs`);
  println(io.stdout, `Logs: ${logsCommand(place)}`);
  return 0;
}

const install = defineCommand({
  name: "install",
  summary: "write a hardened systemd unit running ironclaw serve for this IRONCLAW_HOME, and start it",
  description: `Writes ironclaw.service: \`node bin/ironclaw.js serve\` with IRONCLAW_HOME, the keys from
IRONCLAW_HOME/ironclawd.env (mode 0600, read by serve itself), Restart=on-failure, a read-only system but for the home,
a private /tmp, and NoNewPrivileges where the cell backend allows it (the unit says why). Where systemd runs, it is
loaded, enabled and (re)started; elsewhere the commands to do so are printed. Run it again after moving IronClaw.`,
  options: [USER, UNIT_DIR],
  async run({ options }, io) {
    return installService(io, servicePlace(io, options));
  },
});

const uninstall = defineCommand({
  name: "uninstall",
  summary: "stop and disable the service and remove its unit (IRONCLAW_HOME is left as it is)",
  options: [USER, UNIT_DIR],
  async run({ options }, io) {
    const place = servicePlace(io, options);
    const unitFile = join(place.unitDir, UNIT_NAME);
    if (!existsSync(unitFile)) {
      println(io.stdout, `not installed: there is no ${unitFile}`);
      return 0;
    }
    if (place.managed) {
      const run = await runProgram(
        "systemctl",
        systemctl(place, "disable", "--now", UNIT_NAME).slice(1),
        120_000,
      );
      if (!run.ok) println(io.stderr, `systemctl disable failed: ${run.stderr.trim()}`);
    }
    rmSync(unitFile);
    println(io.stdout, `removed ${unitFile}; IRONCLAW_HOME and its files stay`);
    if (place.managed) await runProgram("systemctl", systemctl(place, "daemon-reload").slice(1), 60_000);
    else
      println(io.stdout, `where systemd runs: ${systemctl(place, "disable", "--now", UNIT_NAME).join(" ")}`);
    return 0;
  },
});

const status = defineCommand({
  name: "status",
  summary: "whether the service is installed, and systemctl status when systemd runs",
  options: [USER, UNIT_DIR],
  async run({ options }, io) {
    const place = servicePlace(io, options);
    const unitFile = join(place.unitDir, UNIT_NAME);
    if (!existsSync(unitFile)) {
      println(io.stdout, `not installed: there is no ${unitFile} (ironclaw service install writes it)`);
      return 3;
    }
    const serves = /^ExecStart=.*$/m.exec(readFileSync(unitFile, "utf8"))?.[0] ?? "";
    println(io.stdout, `installed: ${unitFile}`);
    println(io.stdout, `  ${serves}`);
    if (!place.managed) {
      println(
        io.stdout,
        "systemd is not running here (or does not read this folder): not running as a service",
      );
      return 3;
    }
    const run = await runProgram(
      "systemctl",
      systemctl(place, "status", "--no-pager", UNIT_NAME).slice(1),
      30_000,
    );
    io.stdout.write(run.stdout);
    println(io.stdout, `Logs: ${logsCommand(place)}`);
    return run.code ?? 1;
  },
});

export const serviceCommand = defineGroup({
  name: "service",
  summary: "run the warden as a systemd service: install, uninstall, status",
  description:
    "The warden as a systemd service (ironclaw.service) for IRONCLAW_HOME: started at boot, restarted on failure,\n" +
    "its keys read from IRONCLAW_HOME/ironclawd.env. Logs: journalctl -u ironclaw -f.",
  subcommands: [install, uninstall, status],
});
