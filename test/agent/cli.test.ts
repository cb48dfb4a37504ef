import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runIronclaw, runIronclawInProcess } from "../cli/run-cli.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { createTestBrain, type TestBrain } from "../support/test-brain.js";

let server: ModelServer;
let brain: TestBrain;

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  brain = await createTestBrain({ baseUrl: server.url, providerEmbeddings: true });
});
afterEach(() => brain.remove());

/** The commands' logic runs in this process; `agent chat` below goes through the binary, with a real stdin. */
const agent = (...args: string[]) =>
  runIronclawInProcess(["agent", ...args, "--brain", brain.root, "--workspace", brain.workspace]);

describe("ironclaw agent run", () => {
  it("runs one tool-using turn against the configured provider and prints JSON", async () => {
    server.enqueue(
      reply.toolCalls([
        { name: "file", arguments: { action: "write", path: "notes/todo.md", content: "- buy tea\n" } },
      ]),
      reply.text("Added it to notes/todo.md."),
    );
    const { code, stdout, stderr } = await agent("run", "Add tea to my todo list");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({
      agent: "assistant",
      provider: "local",
      model: "test-model",
      text: "Added it to notes/todo.md.",
      stop_reason: "stop",
      steps: 2,
      tool_calls: [{ tool: "file", outcome: "ok", is_error: false }],
    });
    expect(out.session_id).toMatch(/^[0-9A-Z]{26}$/);
    expect(out.usage.input_tokens).toBeGreaterThan(0);
    expect(readFileSync(join(brain.root, "notes/todo.md"), "utf8")).toBe("- buy tea\n");
  });

  it("reports a provider failure as JSON with exit code 1", async () => {
    server.enqueue(reply.status(404, "The model `test-model` does not exist"));
    const { code, stdout } = await agent("run", "hello");
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ stop_reason: "error", error: { code: "unknown_model" } });
  });

  it("refuses to run without a brain, as a usage error", async () => {
    const { code, stderr } = await runIronclawInProcess(["agent", "run", "hello"]);
    expect(code).toBe(2);
    expect(stderr).toContain("missing --brain <dir>");
  });
});

describe("ironclaw agent chat", () => {
  it("streams each answer and keeps the conversation between lines", async () => {
    server.enqueue(reply.text("Hello Ada.", { chunks: 4 }), reply.text("You are Ada."));
    const { code, stdout } = await runIronclaw(
      ["agent", "chat", "--brain", brain.root, "--workspace", brain.workspace],
      { stdin: "I am Ada.\nWho am I?\n/exit\n" },
    );
    expect(code).toBe(0);
    expect(stdout).toBe("Hello Ada.\nYou are Ada.\n");
    expect(
      server
        .chatRequests()[1]
        ?.messages.slice(1)
        .map((m) => m.content),
    ).toEqual(["I am Ada.", "Hello Ada.", "Who am I?"]);
  });
});

describe("ironclaw cron", () => {
  beforeEach(() => {
    writeFileSync(
      join(brain.root, "cron/jobs.toml"),
      '[[jobs]]\nid = "brief"\nschedule = "0 7 * * *"\ntimezone = "Europe/Berlin"\nprompt = "Write the brief."\n',
    );
  });

  it("run executes a job now and list then shows its state", async () => {
    server.enqueue(reply.text("The brief."));
    const run = await runIronclawInProcess([
      "cron",
      "run",
      "brief",
      "--brain",
      brain.root,
      "--workspace",
      brain.workspace,
    ]);
    expect(run.code).toBe(0);
    const outcome = JSON.parse(run.stdout);
    expect(outcome).toMatchObject({ job_id: "brief", status: "succeeded", text: "The brief." });
    expect(outcome.result_ref).toMatch(/^logs\/\d{4}-\d{2}-\d{2}\.md#L\d+-L\d+$/);

    const list = await runIronclawInProcess(["cron", "list", "--json", "--brain", brain.root]);
    expect(list.code).toBe(0);
    const [job] = JSON.parse(list.stdout);
    expect(job).toMatchObject({
      id: "brief",
      timezone: "Europe/Berlin",
      status: "succeeded",
      last_result_ref: outcome.result_ref,
    });
    expect(Date.parse(job.next_run)).toBeGreaterThan(Date.now());
  });

  it("run names an unknown job with exit code 1", async () => {
    const { code, stderr } = await runIronclawInProcess(["cron", "run", "nope", "--brain", brain.root]);
    expect(code).toBe(1);
    expect(stderr).toContain("nope not found");
  });
});
