import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AgentRuntime } from "../../src/agent/index.js";
import { createLogger } from "../../src/core/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { createTestBrain, type TestBrain } from "../support/test-brain.js";
import { WordHashEmbedder } from "../support/word-hash-embedder.js";

// Skills from the agent's side: listed in its system prompt, read on demand with the file tool, never written.
const SKILL = "---\nname: weather\ndescription: Forecasts for a city.\n---\nAsk the forecast service.\n";

let server: ModelServer;
let brain: TestBrain;
let runtime: AgentRuntime;
let skills: string;

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  brain = await createTestBrain({ baseUrl: server.url });
  skills = mkdtempSync(join(tmpdir(), "ironclaw-skills-"));
  mkdirSync(join(skills, "weather"));
  writeFileSync(join(skills, "weather", "SKILL.md"), SKILL);
  runtime = await AgentRuntime.open(brain.root, {
    embedder: new WordHashEmbedder(),
    workspace: brain.workspace,
    skillsDir: skills,
    logger: createLogger("test", { level: "silent" }),
    env: {},
  });
});
afterEach(async () => {
  await runtime.close();
  brain.remove();
  rmSync(skills, { recursive: true, force: true });
});

describe("installed skills in an agent's turn", () => {
  it("are listed in the system prompt, read with the file tool, and refused to its writes", async () => {
    const location = join(skills, "weather", "SKILL.md");
    server.enqueue(
      reply.toolCalls([{ name: "file", arguments: { action: "read", path: location } }]),
      reply.toolCalls([
        { name: "file", arguments: { action: "write", path: location, content: "rewritten" } },
      ]),
      reply.toolCalls([
        {
          name: "file",
          arguments: { action: "write", path: join(skills, "planted", "SKILL.md"), content: "x" },
        },
      ]),
      reply.text("It will rain."),
    );
    const result = await runtime.runTurn({ prompt: "Weather in Lyon?" });
    expect(result.text).toBe("It will rain.");
    const [first, second, third, fourth] = server.chatRequests();
    const system = String(first?.messages[0]?.content);
    expect(system).toContain(
      `<skill><name>weather</name><description>Forecasts for a city.</description><location>${location}</location></skill>`,
    );
    expect(system).not.toContain("Ask the forecast service.");
    expect(second?.messages.at(-1)).toMatchObject({ role: "tool", content: SKILL });
    expect(String(third?.messages.at(-1)?.content)).toContain("is read-only for tools");
    expect(String(fourth?.messages.at(-1)?.content)).toContain("is read-only for tools");
    expect(readFileSync(location, "utf8")).toBe(SKILL);
    expect(readdirSync(skills)).toEqual(["weather"]);
  });

  it("lists a skill installed while the runtime runs at the next turn", async () => {
    server.enqueue(reply.text("one"), reply.text("two"));
    await runtime.runTurn({ prompt: "first" });
    mkdirSync(join(skills, "notes"));
    writeFileSync(join(skills, "notes", "SKILL.md"), "---\nname: notes\ndescription: Keeps notes.\n---\n");
    await runtime.runTurn({ prompt: "second" });
    const [first, second] = server.chatRequests();
    expect(String(first?.messages[0]?.content)).not.toContain("<name>notes</name>");
    expect(String(second?.messages[0]?.content)).toContain("<name>notes</name>");
  });
});
