import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runIronclawInProcess } from "../cli/run-cli.js";
import { cliEntry } from "../support/cli-entry.js";
import { ev, fullLifecycle } from "./events.js";
import { type LedgerUnderTest, stores } from "./stores.js";

/**
 * A long-running `ironclaw …` child whose stdout is read line by line as it comes: the server and the follower
 * are real processes, ended by a signal. The one-shot commands are the CLI's logic and run in this process.
 */
function startIronclaw(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [...cliEntry(), ...args], {
    env: { ...process.env, IRONCLAW_LOG: "silent" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let partial = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  async function line(matching: RegExp): Promise<string> {
    for (;;) {
      const found = lines.find((l) => matching.test(l));
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`ironclaw exited before printing ${matching}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  return { child, lines, line, exited };
}

describe.each(stores)("ironclaw ledger on $name", (kind) => {
  let ledger: LedgerUnderTest;
  beforeEach(async () => {
    ledger = await kind.open();
    await ledger.store.appendBatch(fullLifecycle("r1", "o1"));
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("shows a run's and an order's snapshot, and exits 1 for an unknown id", async () => {
    const run = await runIronclawInProcess(["ledger", "show", "run", "r1", ...ledger.args]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ run_id: "r1", status: "COMPLETE" });
    const order = await runIronclawInProcess(["ledger", "show", "order", "o1", ...ledger.args]);
    expect(JSON.parse(order.stdout)).toMatchObject({ order_id: "o1", integration_state: "INTEGRATED" });
    const missing = await runIronclawInProcess(["ledger", "show", "order", "nope", ...ledger.args]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("order nope not found");
  });

  it("tails events after a position, filtered by type, as text or JSON lines", async () => {
    const text = await runIronclawInProcess(["ledger", "tail", "--after", "14", ...ledger.args]);
    expect(text.stdout.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^ {4}15 {2}\S+Z {2}WORKTREE_ARCHIVED run=r1 order=o1 {2}\{\}$/),
      expect.stringMatching(/^ {4}16 .* RUN_COMPLETED run=r1 {2}\{"summary":"Five bullets written"\}$/),
    ]);
    const json = await runIronclawInProcess([
      "ledger",
      "tail",
      "--type",
      "ORDER CLAIMED,INTEGRATED",
      "--json",
      ...ledger.args,
    ]);
    const events = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.map((e) => [e.position, e.type])).toEqual([
      [6, "ORDER_CLAIMED"],
      [14, "INTEGRATED"],
    ]);
  });

  it("rebuilds the snapshots, leaving them byte-identical", async () => {
    const before = await ledger.store.dumpSnapshots();
    const { code, stdout } = await runIronclawInProcess(["ledger", "rebuild", ...ledger.args]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^rebuilt 1 runs and 1 orders from 16 events in \d+ ms/);
    expect(await ledger.store.dumpSnapshots()).toEqual(before);
  });

  it("serves the ledger over HTTP until SIGTERM, and follows new events with tail --follow", async () => {
    const server = startIronclaw(["ledger", "serve", "--port", "0", ...ledger.args]);
    const tail = startIronclaw(["ledger", "tail", "--follow", "--after", "16", "--json", ...ledger.args]);
    try {
      const url = /listening on (\S+)/.exec(await server.line(/listening on/))?.[1];
      const health = await fetch(`${url}/health`).then((r) => r.json());
      expect(health).toMatchObject({ ok: true, data: { service: "ledger", status: "ok" } });
      const posted = await fetch(`${url}/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(ev("PATROL_TICK", null)),
      });
      expect(posted.status).toBe(201);
      expect(JSON.parse(await tail.line(/"position":17/))).toMatchObject({ type: "PATROL_TICK" });
    } finally {
      server.child.kill("SIGTERM");
      tail.child.kill("SIGTERM");
    }
    expect(await server.exited).toBe(0);
    expect(await tail.exited).toBe(0);
  });

  it("refuses a ledger file that does not exist for reading commands, and bad usage with exit 2", async () => {
    const missing = await runIronclawInProcess(["ledger", "tail", "--db", "/nonexistent/ledger.db"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("ledger database /nonexistent/ledger.db not found");
    const usage = await runIronclawInProcess(["ledger", "show", "unit", "x", ...ledger.args]);
    expect(usage.code).toBe(2);
  });
});
