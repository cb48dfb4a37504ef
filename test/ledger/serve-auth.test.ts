import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runIronclawInProcess } from "../cli/run-cli.js";
import { cliEntry } from "../support/cli-entry.js";
import { runCreated } from "./events.js";

let home: string;
let env: NodeJS.ProcessEnv;
let db: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-ledger-auth-"));
  env = { IRONCLAW_HOME: home };
  db = join(home, "ledger.db");
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("close", resolve));
    }
  }
  rmSync(home, { recursive: true, force: true });
});

/**
 * `ironclaw ledger serve …` in the background, as its own process: the server that holds the port is the binary.
 * The refusals and the users it reads are the commands' logic and run in this process. Resolves with the URL it
 * prints once it listens.
 */
async function serve(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [...cliEntry(), "ledger", "serve", ...args], {
    env: { ...process.env, IRONCLAW_LOG: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (\S+) \(.*admin bearer tokens required\)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.once("close", (code) => reject(new Error(`ledger serve exited ${code} before listening: ${out}`)));
  });
}

async function addUser(name: string, admin: boolean): Promise<string> {
  const added = await runIronclawInProcess(["user", "add", name, "--json", ...(admin ? ["--admin"] : [])], {
    env,
  });
  expect(added.code).toBe(0);
  return (JSON.parse(added.stdout) as { token: string }).token;
}

function post(url: string, token?: string) {
  return fetch(`${url}/events`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(runCreated(`r${Math.random().toString(36).slice(2)}`)),
  });
}

describe("ironclaw ledger serve on a network address", () => {
  it("refuses to start, in one line, while the warden has no admin whose token could be checked", async () => {
    const missing = await runIronclawInProcess(
      ["ledger", "serve", "--host", "0.0.0.0", "--port", "0", "--db", db],
      {
        env,
      },
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split("\n")).toEqual([
      `ironclaw ledger: serving the ledger on 0.0.0.0, not a loopback address, needs admin tokens, and ${join(home, "host.db")} does not exist: create one with \`ironclaw user add <name> --admin\`, or serve on 127.0.0.1`,
    ]);
    await addUser("alice", false);
    const noAdmin = await runIronclawInProcess(
      ["ledger", "serve", "--host", "0.0.0.0", "--port", "0", "--db", db],
      {
        env,
      },
    );
    expect(noAdmin.code).toBe(1);
    expect(noAdmin.stderr).toMatch(/has no admin user: create one with `ironclaw user add <name> --admin`/);
  });

  it("serves only requests bearing an admin's token from the warden's user store", async () => {
    const userToken = await addUser("alice", false);
    const adminToken = await addUser("ops", true);
    const url = await serve(["--host", "0.0.0.0", "--port", "0", "--db", db]);
    const port = new URL(url).port;
    const loopback = `http://127.0.0.1:${port}`;
    expect((await post(loopback)).status).toBe(401);
    expect((await post(loopback, userToken)).status).toBe(401);
    expect((await post(loopback, `${adminToken}x`)).status).toBe(401);
    expect((await post(loopback, adminToken)).status).toBe(201);
    const address = Object.values(networkInterfaces())
      .flat()
      .find((a) => a?.family === "IPv4" && !a.internal)?.address;
    if (!address) throw new Error("this test needs a non-loopback IPv4 address on this machine");
    expect((await post(`http://${address}:${port}`)).status).toBe(401);
    expect((await post(`http://${address}:${port}`, adminToken)).status).toBe(201);
    const head = await fetch(`${loopback}/events`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(((await head.json()) as { data: { head: number } }).data.head).toBe(2);
  });

  it("asks for tokens on loopback too with --auth", async () => {
    const adminToken = await addUser("ops", true);
    const url = await serve(["--auth", "--port", "0", "--db", db]);
    expect((await post(url)).status).toBe(401);
    expect((await post(url, adminToken)).status).toBe(201);
  });
});
