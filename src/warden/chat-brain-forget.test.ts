import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedUnits, type WardenUnits } from "../../test/support/warden-units.js";
import { BrainHistory, createBrainHistorySink } from "../attest/index.js";
import type { MemoryForgotten } from "../contracts/index.js";
import { createLogger } from "../core/index.js";
import { ChatCore } from "./chat-core.js";

// A forget reaches the brain's history through the warden, as the daemon wires it: the real sink, real git, the
// warden's own forget matcher, for both forms a MemoryForgotten notice takes (a query and exact passages).

let units: WardenUnits | undefined;
afterEach(async () => {
  await units?.close();
  units = undefined;
});

const DB = "c".repeat(64);
const NOTES = "# Notes\n\nMet Bob.\n\nThe vault code is 4711-swordfish.\n\n- Bob's PIN is 9931.\n";

describe("a forget the brain reports", () => {
  it("leaves no state of the brain's history holding the words, and marks the nodes it redacted", async () => {
    const u = (await startScriptedUnits()).units;
    units = u;
    const brain = join(u.home, "users", "ada", "brain");
    mkdirSync(join(brain, "memory"), { recursive: true });
    const brainChanges = createBrainHistorySink({ home: u.home, brainDirOf: () => brain });
    const logger = createLogger("test", { level: "silent" });
    const chat = new ChatCore({
      cells: u.cells,
      conversations: u.conversations,
      soul: u.soul,
      logger,
      brainChanges,
    });
    const history = BrainHistory.open(u.home, "ada");
    const record = (cause: string) => history.record({ cause, brainDir: brain, dbSnapshotSha256: DB });
    writeFileSync(join(brain, "memory.md"), "# Memory\n\n- likes tea\n");
    await record("turn 1");
    writeFileSync(join(brain, "memory", "notes.md"), NOTES);
    const second = await record("turn 2");
    writeFileSync(join(brain, "memory.md"), "# Memory\n\n- likes tea\n- likes rain\n");
    await record("turn 3");
    const objects = () =>
      execFileSync("git", [
        "--git-dir",
        join(history.dir, "git"),
        "cat-file",
        "--batch-all-objects",
        "--batch",
      ]).toString("utf8");
    expect(objects()).toContain("swordfish");
    const notice = (scope: MemoryForgotten["scope"]): MemoryForgotten => ({
      type: "MemoryForgotten",
      user_id: "ada",
      session_id: "cell",
      msg_id: 1,
      timestamp: "2026-11-27T12:00:00Z",
      scope,
      places: 1,
    });

    // The brain forgot the vault code (asked by words), then Bob's PIN (a passage quoted exactly).
    writeFileSync(join(brain, "memory", "notes.md"), "# Notes\n\nMet Bob.\n\n- Bob's PIN is 9931.\n");
    chat.brainForgot("ada", notice({ query: "vault code" }));
    await brainChanges.settle();
    expect(objects()).not.toContain("swordfish");
    expect(objects()).toContain("PIN is 9931");
    writeFileSync(join(brain, "memory", "notes.md"), "# Notes\n\nMet Bob.\n");
    chat.brainForgot("ada", notice({ passages: ["Bob's PIN is 9931."] }));
    await brainChanges.settle();

    const everything = `${objects()}${execFileSync("git", ["--git-dir", join(history.dir, "git"), "log", "-p", "--all"])}`;
    // Whole phrases, since a bare number can turn up inside any object's hex id.
    expect(everything).not.toMatch(/swordfish|code is 4711|PIN is 9931/);
    const log = await history.log();
    expect(log.map((e) => [e.cause, e.redacted])).toEqual([
      ["memory forgotten", false],
      // The brain as the first forget left it still held the PIN the second one forgot.
      ["memory forgotten", true],
      ["turn 3", true],
      ["turn 2", true],
      ["turn 1", false],
    ]);
    const kept = await history.treeOf(second?.node.node_id as string);
    expect(kept.get("memory/notes.md")?.toString()).toBe(
      "# Notes\n\nMet Bob.\n\n[forgotten]\n\n[forgotten]\n",
    );
  });
});
