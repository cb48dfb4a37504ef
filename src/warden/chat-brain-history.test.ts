import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedUnits, type WardenUnits } from "../../test/support/warden-units.js";
import { BrainHistory, createBrainHistorySink } from "../attest/index.js";
import { createLogger } from "../core/index.js";
import { ChatCore } from "./chat-core.js";

// The warden's chat core tells the brain history after every turn, as the daemon wires it: fake cells with a
// scripted agent that writes its brain on the host, the real sink, real git.

let units: WardenUnits | undefined;
afterEach(async () => {
  await units?.close();
  units = undefined;
});

describe("a turn that changes the brain", () => {
  it("becomes a node of the user's brain history; a turn that changes nothing does not", async () => {
    const started = await startScriptedUnits(() => ({
      async *onUserMessage(message) {
        if (message.text !== "just chat")
          writeFileSync(join(brainOf("ada"), "memory.md"), `# Memory\n- ${message.text}\n`);
        yield { kind: "final", text: "noted", usage: { input_tokens: 1, output_tokens: 1 } };
      },
    }));
    const u = started.units;
    units = u;
    const brainOf = (userId: string) => join(u.home, "users", userId, "brain");
    const brainChanges = createBrainHistorySink({ home: u.home, brainDirOf: brainOf });
    const logger = createLogger("test", { level: "silent" });
    const chat = new ChatCore({
      cells: u.cells,
      conversations: u.conversations,
      soul: u.soul,
      logger,
      brainChanges,
    });
    const turn = async (text: string) => {
      for await (const _ of chat.turn({ channel: "api", userId: "ada", text })) {
        // drained: the history is told when the turn completes
      }
      await brainChanges.settle();
    };

    await turn("likes tea");
    await turn("likes coffee");
    await turn("just chat");

    const history = BrainHistory.open(u.home, "ada");
    const log = await history.log();
    expect(log).toHaveLength(2);
    expect(log.every((e) => e.cause.startsWith("turn "))).toBe(true);
    const diff = await history.diff(log[1]?.node.node_id as string, log[0]?.node.node_id as string);
    expect(diff.changed).toEqual(["memory.md"]);
    expect(diff.patch).toContain("+- likes coffee");
    expect(readFileSync(join(brainOf("ada"), "memory.md"), "utf8")).toContain("likes coffee");
  });
});
