import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { noNewPrivileges, renderUnit } from "../../src/cli/commands/service-unit.js";
import { runProgram } from "../../src/core/index.js";
import { runIronclawInProcess } from "./run-cli.js";

const root = mkdtempSync(join(tmpdir(), "ironclaw-service-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** `systemd-analyze verify` of a unit: exit 0 and nothing said about it (an ignored line is only a warning). */
async function verify(unitFile: string) {
  const run = await runProgram("systemd-analyze", ["verify", unitFile], 60_000);
  return {
    code: run.code,
    said: run.stderr.split("\n").filter((line) => line.includes(unitFile.split("/").pop() ?? "")),
  };
}

describe("ironclaw service", () => {
  it("installs a unit systemd-analyze verifies, running serve for the home with its 0600 key file", async () => {
    const home = join(root, "home");
    const units = join(root, "units");
    const installed = await runIronclawInProcess(["service", "install", "--unit-dir", units], {
      env: { IRONCLAW_HOME: home },
    });
    expect(installed.code).toBe(0);
    const unitFile = join(units, "ironclaw.service");
    const unit = readFileSync(unitFile, "utf8");
    expect(unit).toMatch(new RegExp(`^ExecStart=${process.execPath} /\\S+/bin/ironclaw\\.js serve$`, "m"));
    expect(unit).toContain(`Environment=IRONCLAW_HOME=${home}\n`);
    // The keys file is read by serve itself, never put in the process's environment, whence children inherit.
    expect(unit).toContain(`serve reads ${join(home, "ironclawd.env")} (0600`);
    expect(unit).not.toContain("EnvironmentFile=");
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^ProtectSystem=strict$/m);
    expect(unit).toContain(`ReadWritePaths=${home}\n`);
    // /run is read-only under ProtectSystem=strict: the folders a root warden's cells mount under are made for it.
    expect(unit).toContain("RuntimeDirectory=ironclaw-cell-stage ironclaw-scratch\n");
    // A home under /tmp must stay visible to the warden.
    expect(unit).toMatch(/^PrivateTmp=no$/m);
    expect(unit).toMatch(/^NoNewPrivileges=yes$/m);
    expect(statSync(join(home, "ironclawd.env")).mode & 0o777).toBe(0o600);
    // No systemd runs the temporary folder: the commands to run are printed, with where the logs are.
    expect(installed.stdout).toContain("systemctl enable ironclaw.service");
    expect(installed.stdout).toContain("systemctl restart ironclaw.service");
    expect(installed.stdout).toContain("journalctl -u ironclaw -f");

    expect(await verify(unitFile)).toEqual({ code: 0, said: [] });

    const status = await runIronclawInProcess(["service", "status", "--unit-dir", units], {
      env: { IRONCLAW_HOME: home },
    });
    expect(status.stdout).toContain(`installed: ${unitFile}`);
    const removed = await runIronclawInProcess(["service", "uninstall", "--unit-dir", units], {
      env: { IRONCLAW_HOME: home },
    });
    expect(removed.code).toBe(0);
    expect(existsSync(unitFile)).toBe(false);
    const gone = await runIronclawInProcess(["service", "status", "--unit-dir", units], {
      env: { IRONCLAW_HOME: home },
    });
    expect(gone).toMatchObject({ code: 3, stdout: expect.stringContaining("not installed") });
  });

  it("would fail verification for a unit whose program is missing (the check can fail)", async () => {
    const bad = join(root, "bad", "ironclaw.service");
    const text = renderUnit({
      node: "/nonexistent/node",
      entry: "/opt/ironclaw/bin/ironclaw.js",
      home: "/var/lib/ironclaw",
      envFile: "/var/lib/ironclaw/ironclawd.env",
      writable: [],
      backend: "auto",
      user: false,
      bwrapSetuid: false,
    });
    expect(text).toMatch(/^ProtectHome=yes$/m);
    expect(text).toMatch(/^PrivateTmp=yes$/m);
    mkdirSync(join(root, "bad"));
    writeFileSync(bad, text);
    expect((await verify(bad)).code).not.toBe(0);
  });

  it("leaves NoNewPrivileges off only for a user's warden whose bwrap needs its setuid bit", () => {
    expect(noNewPrivileges({ backend: "auto", user: true, bwrapSetuid: true }).allowed).toBe(false);
    expect(noNewPrivileges({ backend: "bwrap", user: true, bwrapSetuid: false }).allowed).toBe(true);
    expect(noNewPrivileges({ backend: "microvm", user: true, bwrapSetuid: true }).allowed).toBe(true);
    expect(noNewPrivileges({ backend: "bwrap", user: false, bwrapSetuid: true }).allowed).toBe(true);
  });
});
