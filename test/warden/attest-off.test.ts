import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { IronclawdConfig } from "../../src/contracts/index.js";
import { evidenceDirOf } from "../../src/warden/attest/index.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness } from "../support/warden-harness.js";

// [attest] in ironclawd.toml turns a warden's provenance off for an operator: a turn that writes the brain is
// answered, and the warden's close (which waits for every record and certificate under way) leaves no
// certificate, or no history either, of it.

const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

async function turnThatWritesTheBrain(attest: IronclawdConfig["attest"]): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "ironclaw-attest-off-"));
  homes.push(home);
  const h = await startWardenHarness({
    backend: createFakeCellBackend(),
    home,
    configure: (config) => ({ ...config, attest }),
  });
  try {
    const ada = api(h.url, await h.addUser("ada"));
    h.model.enqueue(
      reply.toolCalls([
        { name: "file", arguments: { action: "write", path: "notes/plan.md", content: "# Plan\n" } },
      ]),
      reply.text("Written."),
    );
    const turn = await ada("POST", "/api/chat", { text: "write the plan" });
    expect(turn.status).toBe(200);
    expect(((await turn.json()) as { data: { text: string } }).data.text).toBe("Written.");
  } finally {
    await h.close();
  }
  return home;
}

describe("[attest] switched off", () => {
  it("certify_turns = false: the brain's history records the turn, no certificate is written", async () => {
    const home = await turnThatWritesTheBrain({ brain_history: true, certify_turns: false });
    expect(existsSync(join(home, "attest", "history", "ada"))).toBe(true);
    expect(existsSync(evidenceDirOf(home, "ada"))).toBe(false);
  }, 60_000);

  it("brain_history = false and certify_turns = false: neither history nor certificate", async () => {
    const home = await turnThatWritesTheBrain({ brain_history: false, certify_turns: false });
    expect(existsSync(join(home, "attest", "history", "ada"))).toBe(false);
    expect(existsSync(evidenceDirOf(home, "ada"))).toBe(false);
  }, 60_000);
});
