import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CommandService } from "../../src/command/index.js";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { HostedCommandGateway } from "../../src/warden/command-host-gateway.js";
import { HostProviders, WardenPlanner } from "../../src/warden/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";

// The agent's command tool over the command the warden hosts: runs planned by the host's model (the scripted
// server, over HTTP), owned by their user, and their outcome posted back to the conversation they came from.

let home: string;
let model: ModelServer;
let command: CommandService;
let gateway: HostedCommandGateway;
const notices: Array<{ userId: string; text: string; kind: string; runId: string }> = [];
const conversation = { sessionId: "s1", channel: "api" };
const PLAN = '{"orders": [{"key": "a1", "type": "research", "objective": "Read the repository"}]}';

beforeAll(async () => {
  model = await startModelServer();
  home = mkdtempSync(join(tmpdir(), "ironclaw-hosted-gateway-"));
  const config = ironclawdConfigSchema.parse({
    providers: { local: { base_url: model.url } },
    new_brains: { provider: "local", model: "test-model" },
  });
  command = await CommandService.open({
    home,
    planner: new WardenPlanner(new HostProviders(config, {}), config),
  });
  gateway = new HostedCommandGateway(command, (userId, _conversation, text, { kind, runId }) => {
    notices.push({ userId, text, kind, runId });
    return undefined;
  });
  await command.theaters.add({ theaterId: "demo", owner: "alice" });
});
afterAll(async () => {
  await command?.close();
  await model?.close();
  rmSync(home, { recursive: true, force: true });
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("timed out");
}

describe("the hosted command gateway", () => {
  it("starts a run its user alone follows and cancels", async () => {
    model.enqueue(reply.text(PLAN));
    const { runId, status } = await gateway.start("alice", {
      theaterId: "demo",
      objective: "Summarize",
      conversation,
    });
    expect(status).toBe("OPEN");
    const planned = await until(
      () => gateway.status("alice", runId),
      (v) => (v?.orders.length ?? 0) > 0,
    );
    expect(planned?.orders).toEqual([
      expect.objectContaining({ title: "Read the repository", status: "QUEUED" }),
    ]);
    expect(await gateway.status("bob", runId)).toBeUndefined();
    expect(await gateway.cancel("bob", runId)).toBeUndefined();
    expect((await gateway.cancel("alice", runId))?.status).toBe("CANCELLED");
    const notice = await until(
      async () => notices.find((n) => n.runId === runId),
      (n) => n !== undefined,
    );
    expect(notice).toMatchObject({ userId: "alice", kind: "failure" });
    expect(notice?.text).toMatch(/CANCELLED/);
  });

  it("refuses another user's theater as unknown, and reports a plan the model botched", async () => {
    await expect(gateway.start("bob", { theaterId: "demo", objective: "x" })).rejects.toThrow(/theater demo/);
    model.enqueue(reply.text("no plan from me"));
    const { runId } = await gateway.start("alice", {
      theaterId: "demo",
      objective: "Refactor",
      conversation,
    });
    const notice = await until(
      async () => notices.find((n) => n.runId === runId),
      (n) => n !== undefined,
    );
    expect(notice?.kind).toBe("failure");
    expect(notice?.text).toMatch(/plan/);
    expect((await gateway.status("alice", runId))?.status).toBe("CANCELLED");
  });
});
