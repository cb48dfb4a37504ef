import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuditStore,
  openHostDb,
  SecretKeyring,
  SecretStore,
  SkillStore,
  UserStore,
} from "../../src/warden/index.js";
import { cliEntry } from "../support/cli-entry.js";
import { databaseBytes } from "../support/database-bytes.js";
import { REPO_ROOT, runIronclaw, runIronclawInProcess } from "./run-cli.js";

// `ironclaw secrets` as an operator runs it: the value goes in on stdin and never comes out again, not on
// stdout, not in a log line, not in host.db's bytes.
const VALUE = "ghp_CliSecretValue9f8e7d6c5b4a3210";
let root = "";
let home = "";
let logs = "";
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-secrets-cli-"));
  home = join(root, "home");
  const db = openHostDb(home);
  await new UserStore(db).add("alice");
  db.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The most verbose logging there is, so a value written to any log line would show.
const child = async (args: string[], stdin = "") => {
  const result = await runIronclaw(args, { stdin, env: { IRONCLAW_HOME: home, IRONCLAW_LOG: "trace" } });
  logs += result.stderr;
  return result;
};
const inProcess = async (args: string[], stdin = "") => {
  const result = await runIronclawInProcess(args, {
    stdin,
    env: { IRONCLAW_HOME: home, IRONCLAW_LOG: "trace" },
  });
  logs += result.stderr;
  return result;
};

describe("ironclaw secrets", () => {
  it("stores a value from stdin, lists it by name only, and keeps it out of host.db's bytes", async () => {
    const set = await child(["secrets", "set", "GITHUB_TOKEN", "--user", "alice"], `${VALUE}\n`);
    expect(set).toMatchObject({ code: 0, stdout: "stored GITHUB_TOKEN for alice\n" });
    expect(statSync(join(home, "secrets.key")).mode & 0o777).toBe(0o600);

    const list = await child(["secrets", "list", "--user", "alice"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^GITHUB_TOKEN\s+set \d{4}-/);
    expect(list.stdout).not.toContain(VALUE);
    const json = JSON.parse((await inProcess(["secrets", "list", "--user", "alice", "--json"])).stdout);
    expect(json.secrets).toEqual([
      { name: "GITHUB_TOKEN", created_at: expect.any(String), updated_at: expect.any(String) },
    ]);

    const db = openHostDb(home);
    try {
      // What was stored is exactly what was piped, less the newline, and opens only with the key file.
      expect(new SecretStore(db, new SecretKeyring(home)).get("alice", "GITHUB_TOKEN")).toBe(VALUE);
      const trail = new AuditStore(db).list({ userId: "alice" });
      expect(trail.map((r) => r.action)).toContain("secret.set");
      expect(JSON.stringify(trail)).not.toContain(VALUE);
    } finally {
      db.close();
    }
    const bytes = databaseBytes(join(home, "host.db"));
    expect(bytes).toContain("GITHUB_TOKEN");
    expect(bytes).not.toContain(VALUE);
    expect(bytes).not.toContain(VALUE.slice(4, 16));
    expect(readFileSync(join(home, "secrets.key")).toString("latin1")).not.toContain(VALUE);
  }, 120_000);

  it("never takes a value from the command line", async () => {
    // Straight to the CLI: its usage error quotes the stray argument back to the person who typed it.
    const argv = await runIronclawInProcess(["secrets", "set", "OTHER_TOKEN", VALUE, "--user", "alice"], {
      env: { IRONCLAW_HOME: home },
    });
    expect(argv.code).toBe(2);
    expect(argv.stderr).toContain("unexpected argument");
    const empty = await inProcess(["secrets", "set", "OTHER_TOKEN", "--user", "alice"], "");
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("value: must not be empty");
  });

  it("binds to a host, reports the binding of an unset secret as missing, unbinds and removes", async () => {
    const bind = await inProcess([
      "secrets",
      "bind",
      "GITHUB_TOKEN",
      "--user",
      "alice",
      "--host",
      "api.github.com",
      "--method",
      "get",
      "--path",
      "/repos/",
    ]);
    expect(bind).toMatchObject({
      code: 0,
      stdout: "bound GITHUB_TOKEN → api.github.com:443 Authorization: Bearer {secret}\n",
    });
    await inProcess(["secrets", "bind", "STRIPE_KEY", "--user", "alice", "--host", "api.stripe.com"]);
    const list = await inProcess(["secrets", "list", "--user", "alice"]);
    expect(list.stdout).toContain(
      "GITHUB_TOKEN → api.github.com:443 Authorization: Bearer {secret} (GET) under /repos/\n",
    );
    expect(list.stdout).toContain(
      "STRIPE_KEY → api.stripe.com:443 Authorization: Bearer {secret}  — missing secret",
    );

    const wild = await inProcess([
      "secrets",
      "bind",
      "GITHUB_TOKEN",
      "--user",
      "alice",
      "--host",
      "*.github.com",
    ]);
    expect(wild.code).toBe(1);
    expect(wild.stderr).toContain("host: must be an exact DNS name");
    const noPlaceholder = await inProcess([
      "secrets",
      "bind",
      "GITHUB_TOKEN",
      "--user",
      "alice",
      "--host",
      "api.github.com",
      "--format",
      "Bearer",
    ]);
    expect(noPlaceholder.stderr).toContain("format: must contain {secret} exactly once");

    expect(
      (await inProcess(["secrets", "unbind", "STRIPE_KEY", "--user", "alice", "--host", "api.stripe.com"]))
        .code,
    ).toBe(0);
    expect((await inProcess(["secrets", "remove", "GITHUB_TOKEN", "--user", "alice"])).stdout).toBe(
      "removed GITHUB_TOKEN of alice\n",
    );
    const again = await inProcess(["secrets", "remove", "GITHUB_TOKEN", "--user", "alice"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("secret GITHUB_TOKEN not found");
    const nobody = await inProcess(["secrets", "set", "A_TOKEN", "--user", "nobody"], "v");
    expect(nobody.stderr).toContain("user nobody not found");
  });

  it("wrote the value to no log line at the most verbose level", () => {
    expect(logs).not.toContain(VALUE);
  });
});

describe("ironclaw secrets list with an approved skill", () => {
  it("shows the skill's declared binding and that its secret is missing", async () => {
    const folder = join(root, "linear");
    mkdirSync(folder);
    writeFileSync(
      join(folder, "SKILL.md"),
      [
        "---",
        "name: linear",
        "description: Reads and files Linear issues.",
        "metadata:",
        "  ironclaw:",
        "    egress:",
        "      - { host: api.linear.app, secret: LINEAR_KEY, header: Authorization, format: '{secret}' }",
        "---",
        "Use curl with $LINEAR_KEY.",
        "",
      ].join("\n"),
    );
    const skills = new SkillStore({ usersDir: join(home, "users"), audit: () => {} });
    const review = await skills.review(folder);
    await skills.install("alice", folder, { approvedSha256: review.sha256, by: "test" });
    const list = await inProcess(["secrets", "list", "--user", "alice"]);
    expect(list.stdout).toContain(
      "LINEAR_KEY → api.linear.app:443 Authorization: {secret} [skill linear]  — missing secret\n",
    );
    expect(list.stdout).toContain("LINEAR_KEY is needed by linear — missing secret\n");
  });
});

describe("ironclaw secrets set on a terminal", () => {
  // A real pseudo-terminal (util-linux `script`): the terminal echoes what is typed unless the CLI turns echo off.
  it("asks for the value without echoing it", async () => {
    const typed = "pty-typed-SECRET-5a6b7c";
    const tty = spawn(
      "script",
      [
        "-qfec",
        `${process.execPath} ${cliEntry().join(" ")} secrets set PTY_TOKEN --user alice`,
        "/dev/null",
      ],
      { cwd: REPO_ROOT, env: { ...process.env, IRONCLAW_HOME: home, IRONCLAW_LOG: "silent" } },
    );
    let screen = "";
    const exited = new Promise<number | null>((resolve) => tty.once("exit", resolve));
    tty.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
      // Typed only once the prompt is up, as a person would; text typed earlier is the terminal's to echo.
      if (screen.includes("(not shown): ") && !tty.stdin.writableEnded) tty.stdin.end(`${typed}\r`);
    });
    expect(await exited).toBe(0);
    expect(screen).toContain("stored PTY_TOKEN for alice");
    expect(screen).not.toContain(typed);
    const db = openHostDb(home);
    try {
      expect(new SecretStore(db, new SecretKeyring(home)).get("alice", "PTY_TOKEN")).toBe(typed);
    } finally {
      db.close();
    }
  }, 120_000);
});
