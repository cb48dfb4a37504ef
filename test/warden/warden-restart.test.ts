import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openHostDb, UserStore } from "../../src/warden/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { cellsSettingForServe, startServeProcess } from "../support/serve-process.js";
import { api } from "../support/warden-harness.js";

let home = "";
let model: ModelServer;
let token = "";
const daemons: ChildProcess[] = [];

async function serve(): Promise<{ child: ChildProcess; url: string }> {
  const started = await startServeProcess(home);
  daemons.push(started.child);
  return started;
}

beforeAll(async () => {
  model = await startModelServer();
  home = await mkdtemp(join(tmpdir(), "ironclaw-restart-"));
  await writeFile(
    join(home, "ironclawd.toml"),
    `[providers.local]\nbase_url = "${model.url}"\napi_key_env = "TEST_MODEL_KEY"\n\n` +
      '[new_brains]\nprovider = "local"\nmodel = "test-model"\nembedding_provider = "local"\nembedding_model = "test-embed"\n' +
      (await cellsSettingForServe()),
  );
  const db = openHostDb(home);
  token = (await new UserStore(db).add("erin")).token;
  db.close();
}, 60_000);
afterAll(async () => {
  for (const d of daemons) d.kill("SIGKILL");
  await model?.close();
  await rm(home, { recursive: true, force: true });
});

describe("a daemon killed mid-conversation", () => {
  it("keeps the session's history across kill -9 and a restart, in the warden and in the agent's brain", async () => {
    const first = await serve();
    const call = api(first.url, token);
    model.enqueue(reply.text("Noted: the boiler code is 4711."));
    const one = (await (
      await call("POST", "/api/chat", { text: "remember: the boiler code is 4711" })
    ).json()) as {
      data: { session_id: string; text: string };
    };
    expect(one.data.text).toBe("Noted: the boiler code is 4711.");
    const sessionId = one.data.session_id;

    // The second turn streams a little and then hangs; the daemon is killed while it does.
    model.enqueue(reply.stall("Thinking about"));
    const streaming = await call("POST", `/api/sessions/${sessionId}/messages`, {
      text: "what else?",
      stream: true,
    });
    const reader = streaming.body?.getReader();
    let seen = "";
    while (!seen.includes("Thinking about")) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      seen += new TextDecoder().decode(chunk.value);
    }
    expect(seen).toContain("event: delta");
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));

    const second = await serve();
    const again = api(second.url, token);
    const shown = (await (await again("GET", `/api/sessions/${sessionId}`)).json()) as {
      data: { entries: Array<{ role: string; content: string }> };
    };
    expect(shown.data.entries.slice(0, 3).map((e) => `${e.role}:${e.content}`)).toEqual([
      "user:remember: the boiler code is 4711",
      "assistant:Noted: the boiler code is 4711.",
      "user:what else?",
    ]);

    model.enqueue(reply.text("It is 4711."));
    const three = (await (
      await again("POST", `/api/sessions/${sessionId}/messages`, { text: "what is the boiler code?" })
    ).json()) as {
      data: { text: string };
    };
    expect(three.data.text).toBe("It is 4711.");
    // The agent's own history of the session came back from the brain after both restarts.
    const sent = (model.chatRequests().at(-1)?.messages ?? []).map((m) => String(m.content ?? ""));
    expect(sent).toContain("remember: the boiler code is 4711");
    expect(sent).toContain("Noted: the boiler code is 4711.");
    second.child.kill("SIGTERM");
    const code = await new Promise((resolve) => second.child.once("exit", resolve));
    expect(code).toBe(0);
  }, 120_000);
});
