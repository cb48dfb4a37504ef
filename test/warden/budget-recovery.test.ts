import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { isOwnerAlive } from "../../src/core/index.js";
import { ModelBudget, type ModelCallStart } from "../../src/warden/budget/budget-guard.js";
import { openHostDb } from "../../src/warden/host-db.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const config = ironclawdConfigSchema.parse({
  pricing: { local: { "test-model": { input: 1, output: 10 } } },
});

let home = "";
let db: Database.Database;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-budget-recovery-"));
  db = openHostDb(home);
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

// 300 bytes: a prompt estimate of 104 tokens (104 µUSD); with 1000 tokens out the call holds 10104 µUSD.
const call: ModelCallStart = {
  userId: "rita",
  provider: "local",
  model: "test-model",
  messages: [{ role: "user", content: "x".repeat(300) }],
  maxTokens: 1000,
};
const spend = () =>
  db
    .prepare<[], { spent: number; reserved: number }>(
      "SELECT spent_micros AS spent, reserved_micros AS reserved FROM budget_spend WHERE party = 'user:rita' AND period_key LIKE 'day:%'",
    )
    .get();

describe("recovering the reservations of a warden that died", () => {
  it("settles a dead warden's calls as interrupted at their prompt's cost, and leaves a live one's alone", () => {
    const dead = new ModelBudget({ db, config, owner: "gone/1/1" });
    const live = new ModelBudget({ db, config, owner: "here/2/2" });
    const orphan = dead.admit(call);
    const running = live.admit(call);
    expect(spend()).toEqual({ spent: 0, reserved: 2 * 10_104 });

    const settled = live.recover((owner) => owner === "here/2/2");
    expect(settled).toBe(1);
    expect(spend()).toEqual({ spent: 104, reserved: 10_104 });
    const id = orphan.ok ? orphan.reservation.id : "";
    expect(live.usage.call(id)).toMatchObject({
      state: "interrupted",
      estimated: 1,
      cost_micros: 104,
      owner: null,
    });

    // The dead warden's late settlement (it was only slow) cannot count the call a second time.
    if (orphan.ok)
      dead.settle(orphan, call, {
        state: "done",
        usage: { input_tokens: 100, output_tokens: 900 },
        reply: { content: "", toolCalls: [] },
        accepted: true,
        ms: 1,
      });
    expect(spend()).toEqual({ spent: 104, reserved: 10_104 });
    expect(running.ok && live.usage.call(running.reservation.id)?.state).toBe("open");
  });

  it("tells a running process from one that was killed, by pid and start time", async () => {
    const child = spawn("sleep", ["30"]);
    await new Promise((resolve) => child.once("spawn", resolve));
    const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
    const ticks = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const owner = `${hostname()}/${child.pid}/${ticks}`;
    expect(isOwnerAlive(owner)).toBe(true);
    // The same pid with another start time is another process: the owner is gone.
    expect(isOwnerAlive(`${hostname()}/${child.pid}/1`)).toBe(false);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(isOwnerAlive(owner)).toBe(false);
    expect(isOwnerAlive(`another-host/${child.pid}/${ticks}`)).toBeUndefined();
  });
});

/** A process that tries `attempts` calls against the same host.db, holding each admitted one for `holdMs`. */
function racer(attempts: number, holdMs: number, startAt: number): Promise<number> {
  const script = `
    const { openHostDb } = await import(${JSON.stringify(join(ROOT, "src/warden/host-db.ts"))});
    const { ModelBudget } = await import(${JSON.stringify(join(ROOT, "src/warden/budget/budget-guard.ts"))});
    const { ironclawdConfigSchema } = await import(${JSON.stringify(join(ROOT, "src/contracts/index.ts"))});
    const db = openHostDb(process.env.HOME_DIR);
    const config = ironclawdConfigSchema.parse({ pricing: { local: { "test-model": { input: 1, output: 10 } } } });
    const budget = new ModelBudget({ db, config });
    const call = { userId: "rita", provider: "local", model: "test-model",
      messages: [{ role: "user", content: "x".repeat(300) }], maxTokens: 1000 };
    const pause = new Int32Array(new SharedArrayBuffer(4));
    // Every racer starts at the same moment, whatever its own start-up took.
    Atomics.wait(pause, 0, 0, Math.max(0, ${startAt} - Date.now()));
    let admitted = 0;
    for (let i = 0; i < ${attempts}; i++) {
      const a = budget.admit(call);
      if (!a.ok) continue;
      admitted++;
      Atomics.wait(pause, 0, 0, ${holdMs});
      // The provider reports exactly the worst case, so every admitted call spends all it held.
      budget.settle(a, call, { state: "done", usage: { input_tokens: 104, output_tokens: 1000 },
        reply: { content: "", toolCalls: [] }, accepted: true, ms: 1 });
    }
    db.close();
    console.log(admitted);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      env: { ...process.env, HOME_DIR: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.once("exit", (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(err))));
  });
}

describe("reservations across processes", () => {
  it("never lets processes sharing host.db together pass a cap", async () => {
    const budget = new ModelBudget({ db, config, owner: "test/1/1" });
    // Room for exactly 7 calls of 10104 µUSD.
    budget.store.setCap({ kind: "user", user: "rita" }, "day", 7 * 10_104 + 5000, "test");
    const startAt = Date.now() + 8000;
    const admitted = await Promise.all(Array.from({ length: 4 }, () => racer(6, 15, startAt)));
    expect(admitted.reduce((a, b) => a + b, 0)).toBe(7);
    expect(spend()).toEqual({ spent: 7 * 10_104, reserved: 0 });
    const report = budget.usage.report("user");
    expect(report.rows[0]).toMatchObject({ calls: 7, refused: 24 - 7, costMicros: 7 * 10_104 });
  }, 60_000);
});
