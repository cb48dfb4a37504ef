import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { runIronclawInProcess } from "./run-cli.js";

// ironclaw theater / run / order on the files under IRONCLAW_HOME, as the warden would open them; planning goes
// to the host's planning model, here the scripted OpenAI-compatible server over HTTP.

let root: string;
let home: string;
let model: ModelServer;
const PLAN = '{"orders": [{"key": "a1", "type": "research", "objective": "Read the repository"}]}';

beforeAll(async () => {
  model = await startModelServer();
  root = mkdtempSync(join(tmpdir(), "ironclaw-cli-command-"));
  home = join(root, "home");
  await runIronclawInProcess(["theater", "list"], { env: { IRONCLAW_HOME: home } });
  writeFileSync(
    join(home, "ironclawd.toml"),
    `[providers.local]\nbase_url = "${model.url}"\n\n[new_brains]\nprovider = "local"\nmodel = "test-model"\n`,
  );
});
afterAll(async () => {
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

const cli = (...args: string[]) => runIronclawInProcess(args, { env: { IRONCLAW_HOME: home } });
const json = <T>(stdout: string) => JSON.parse(stdout) as T;

describe("ironclaw theater, run and order", () => {
  it("add a theater, plan a run into orders with the model, show, list and cancel it", async () => {
    const added = await cli("theater", "add", "demo", "--user", "alice", "--json");
    expect(added.code).toBe(0);
    expect(json(added.stdout)).toMatchObject({
      theater_id: "demo",
      owner: "alice",
      created: true,
      repo_path: join(home, "theaters", "demo", "repo"),
    });
    expect(json<Array<{ theater_id: string }>>((await cli("theater", "list", "--json")).stdout)).toHaveLength(
      1,
    );

    model.enqueue(reply.text(PLAN));
    const started = await cli("run", "--theater", "demo", "Summarize the repository", "--json");
    expect(started.stderr).toBe("");
    expect(started.code).toBe(0);
    const run = json<{ run_id: string; status: string; orders: Array<{ order_id: string; key: string }> }>(
      started.stdout,
    );
    expect(run.status).toBe("OPEN");
    expect(run.orders.map((o) => o.key)).toEqual(["a1"]);
    expect(JSON.stringify(model.chatRequests().at(-1)?.messages)).toContain("Summarize the repository");

    const shown = await cli("run", "show", run.run_id);
    expect(shown.stdout).toContain(`run ${run.run_id}  OPEN  theater demo`);
    const order = json<{ run_id: string; plan: { key: string } }>(
      (await cli("order", "show", run.orders[0]?.order_id ?? "", "--json")).stdout,
    );
    expect(order).toMatchObject({ run_id: run.run_id, plan: { key: "a1" } });
    const listed = json<Array<{ run_id: string; user_id: string }>>(
      (await cli("run", "list", "--json")).stdout,
    );
    expect(listed).toEqual([expect.objectContaining({ run_id: run.run_id, user_id: "alice" })]);

    const cancelled = await cli("run", "cancel", run.run_id);
    expect(cancelled.stdout).toContain(`run ${run.run_id} CANCELLED (1 orders cancelled)`);
    expect(json<{ status: string }>((await cli("run", "show", run.run_id, "--json")).stdout).status).toBe(
      "CANCELLED",
    );
  });

  it("refuses a run without a theater, or in one that does not exist, by name", async () => {
    const missing = await cli("run", "Do something");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--theater/);
    const unknown = await cli("run", "--theater", "nowhere", "Do something");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/nowhere/);
  });

  it("plans under the run's user's spend caps: a model without a price is refused under a cap", async () => {
    expect((await cli("user", "add", "carol")).code).toBe(0);
    expect((await cli("budget", "set", "--user", "carol", "--daily-usd", "5")).code).toBe(0);
    expect((await cli("theater", "add", "carols", "--user", "carol")).code).toBe(0);
    const calls = model.chatRequests().length;
    const refused = await cli("run", "--theater", "carols", "Plan something");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/price/);
    expect(model.chatRequests()).toHaveLength(calls);
    const [run] = json<Array<{ status: string }>>(
      (await cli("run", "list", "--user", "carol", "--json")).stdout,
    );
    expect(run?.status).toBe("CANCELLED");
  });

  it("lists command serve for a headless host", async () => {
    const help = await cli("command", "--help");
    expect(help.stdout).toMatch(/serve\s+serve command's HTTP API alone/);
  });
});
