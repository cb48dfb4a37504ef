import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TurnEvent } from "./cell-handler.js";
import { createGateHandler, parseGateRequest } from "./gate-handler.js";

// The gate handler run in this process (no cell): what it answers, where commands run, and where it stops.
// The cell around it is exercised by command's integration tests.
let brain = "";
beforeEach(async () => {
  brain = await mkdtemp(join(tmpdir(), "ironclaw-gate-"));
});
afterEach(async () => {
  await rm(brain, { recursive: true, force: true });
});

async function gate(body: unknown): Promise<Extract<TurnEvent, { kind: "final" }>> {
  const context = {
    userId: "ada",
    brainRoot: brain,
    signal: new AbortController().signal,
    writeRaw: () => {},
  };
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const events: TurnEvent[] = [];
  for await (const event of createGateHandler().onUserMessage(
    { type: "UserMessage", user_id: "ada", session_id: "s", msg_id: 1, timestamp: "", text },
    context,
  ))
    events.push(event);
  const last = events.at(-1);
  if (last?.kind !== "final") throw new Error("no final answer");
  return last;
}

describe("the gate handler", () => {
  it("runs each command in work/, stops at the first failure and answers every outcome with its output's tail", async () => {
    const answer = await gate({
      commands: ["pwd; echo out", "echo bad >&2; exit 3", "touch ran-after-failure"],
      timeout_ms: 20_000,
    });
    const { results } = JSON.parse(answer.text);
    expect(results).toEqual([
      {
        command: "pwd; echo out",
        exit: 0,
        stdout_tail: `${join(brain, "work")}\nout\n`,
        stderr_tail: "",
        timed_out: false,
      },
      { command: "echo bad >&2; exit 3", exit: 3, stdout_tail: "", stderr_tail: "bad\n", timed_out: false },
    ]);
  });

  it("reports a command that runs past its limit as timed out", async () => {
    const { results } = JSON.parse((await gate({ commands: ["sleep 5"], timeout_ms: 200 })).text);
    expect(results[0]).toMatchObject({ command: "sleep 5", timed_out: true });
    expect(results[0].exit).not.toBe(0);
  });

  it("refuses a request naming the field and the rule", async () => {
    expect(parseGateRequest("npm test")).toMatch(/must be a JSON object/);
    expect(parseGateRequest(JSON.stringify({ commands: "npm test" }))).toBe(
      "commands: must be an array of non-empty strings",
    );
    expect(parseGateRequest(JSON.stringify({ commands: ["x"], dir: "../host" }))).toMatch(/^dir: /);
    expect(parseGateRequest(JSON.stringify({ commands: ["x"], timeout_ms: 0 }))).toMatch(/^timeout_ms: /);
    const answer = await gate({ commands: [], dir: "/etc" });
    expect(answer.stopReason).toBe("error");
    expect(JSON.parse(answer.text).error).toMatch(/^dir: /);
  });
});
