import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/core/index.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A cell that keeps crashing, through a real warden and real bwrap cells. The shell test handler's `!oom` fills
// the runtime's heap until V8 aborts it at the cell's limit: the end a long paste once met.
const ABORT_LIKE_OOM = "!oom";

let h: WardenHarness;
let user: ReturnType<typeof api>;
let admin: ReturnType<typeof api>;
const logLines: string[] = [];

beforeAll(async () => {
  const logger = createLogger(
    "warden-test",
    { level: "info" },
    { write: (line: string) => logLines.push(line) },
  );
  h = await startWardenHarness({
    handler: "shell",
    logger,
    // The shell handler keeps no prompt files for the soul guard to read.
    configure: (config) => ({ ...config, soul_guard: { ...config.soul_guard, enabled: false } }),
  });
  user = api(h.url, await h.addUser("dora"));
  admin = api(h.url, (await h.warden.context.users.add("root", { admin: true })).token);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function chat(text: string): Promise<{ text: string; error?: string }> {
  const response = await user("POST", "/api/chat", { text });
  expect(response.status).toBe(200);
  const data = ((await response.json()) as { data: { text: string; error?: string } }).data;
  return data;
}

interface CellRow {
  user: string;
  state: string;
  restarts: number;
  last_crash: {
    reason: string;
    stderr: string;
    code: number | null;
    signal: string | null;
    crashes: number;
  } | null;
  retry_at: string | null;
}

async function cellOf(name: string): Promise<CellRow | undefined> {
  const response = await admin("GET", "/api/admin/cells");
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { cells: CellRow[] } };
  return body.data.cells.find((c) => c.user === name);
}

describe("a cell that keeps crashing", () => {
  it("is held after four crashes, and the log, the admin API and the user's next message say why", async () => {
    expect(JSON.parse((await chat("echo alive")).text)).toMatchObject({ exit: 0, stdout: "alive\n" });
    const crashed = await chat(ABORT_LIKE_OOM);
    // Mid-answer, the user is told what became of the cell, in words.
    expect(crashed.error).toMatch(/your agent's cell stopped while answering: it ran out of memory/);
    expect(crashed.error).not.toMatch(/0x[0-9a-f]{6}|v8::/);
    for (let i = 0; i < 3; i++) await chat(ABORT_LIKE_OOM);

    const held = await chat("echo are you there");
    expect(held.error).toMatch(
      /^Your agent is stopped: its cell crashed 4 times in a row, the last time because it ran out of memory\./,
    );
    expect(held.error).toMatch(/admin can restart it now from the admin screen \(Cells, Restart\)/);
    expect(held.error).toMatch(/POST \/api\/admin\/cells\/dora\/restart/);

    // Any other route that needs the cell says the same, as a 503.
    const status = await user("GET", "/api/memory/status");
    expect(status.status).toBe(503);
    expect(((await status.json()) as { error: { message: string } }).error.message).toMatch(
      /^Your agent is stopped: its cell crashed 4 times/,
    );

    const row = await cellOf("dora");
    expect(row).toMatchObject({ state: "crash_loop" });
    expect(row?.last_crash?.crashes).toBe(4);
    expect(row?.last_crash?.reason).toMatch(
      /^it ran out of memory \(exit code 134: FATAL ERROR: .*JavaScript heap out of memory\)$/,
    );
    expect(row?.last_crash?.stderr).toContain("JavaScript heap out of memory");
    expect(Date.parse(row?.retry_at ?? "")).toBeGreaterThan(Date.now() + 60_000);

    const gaveUp = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => String(l.msg).startsWith("a cell keeps crashing"));
    expect(gaveUp).toMatchObject({ user: "dora" });
    expect(String(gaveUp?.msg)).toMatch(/POST \/api\/admin\/cells\/dora\/restart starts it now/);
    expect(JSON.stringify(gaveUp?.exit)).toContain("JavaScript heap out of memory");
    expect(String(gaveUp?.error)).toMatch(/4 crashes within \d+ ms, the last it ran out of memory/);
  }, 180_000);

  it("starts again at once when an admin restarts it, and answers", async () => {
    const refused = await user("POST", "/api/admin/cells/dora/restart");
    expect(refused.status).toBe(403);
    const restarted = await admin("POST", "/api/admin/cells/dora/restart");
    expect(restarted.status).toBe(200);
    expect(((await restarted.json()) as { data: CellRow }).data).toMatchObject({
      user: "dora",
      state: "running",
      last_crash: null,
      retry_at: null,
    });
    expect(JSON.parse((await chat("echo back again")).text)).toMatchObject({
      exit: 0,
      stdout: "back again\n",
    });
    const missing = await admin("POST", "/api/admin/cells/nobody/restart");
    expect(missing.status).toBe(404);
  }, 120_000);
});
