import { describe, expect, it } from "vitest";
import type { BrainHistoryEntry } from "../api/endpoints.js";
import { fakeApi, ok, refused } from "../testing/fake-api.js";
import { createHistoryController } from "./history-controller.js";

const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const entry = (id: string, parent: string | null, files: string[]): BrainHistoryEntry => ({
  node: { node_id: id, parent_node_id: parent, state_db: { ratchet_step: parent ? 1 : 0 } },
  commit: "c".repeat(40),
  cause: parent ? "turn t2" : "turn t1",
  at: "2026-11-27T12:00:00.000Z",
  redacted: false,
  files,
});
const diff = { from_node: A, to_node: B, added: [], changed: ["plan.md"], removed: [], patch: "-a\n+b\n" };

describe("the brain's history in the memory inspector", () => {
  it("lists the states, and diffs one against its parent or another state", async () => {
    const { client, calls } = fakeApi({
      "GET /api/brain/history": () =>
        ok({ entries: [entry(B, A, ["plan.md"]), entry(A, null, ["soul.md"])] }),
      "GET /api/brain/history/diff": () => ok(diff),
    });
    const c = createHistoryController(client);
    await c.dispatch({ type: "load" });
    expect(c.state.entries.map((e) => e.node.node_id)).toEqual([B, A]);
    await c.dispatch({ type: "select", nodeId: B });
    expect(calls.at(-1)?.args.query).toEqual({ to: B });
    expect(c.state.diff?.changed).toEqual(["plan.md"]);
    await c.dispatch({ type: "compare", against: A });
    expect(calls.at(-1)?.args.query).toEqual({ to: B, from: A });
    expect(c.state.against).toBe(A);
  });

  it("restores only once confirmed, then lists the new state and names the files it wrote", async () => {
    let restored = false;
    const restoredFiles: string[][] = [];
    const { client, calls } = fakeApi({
      "GET /api/brain/history": () =>
        ok({
          entries: restored
            ? [
                entry("33333333-3333-4333-8333-333333333333", B, ["plan.md"]),
                entry(B, A, []),
                entry(A, null, []),
              ]
            : [entry(B, A, []), entry(A, null, [])],
        }),
      "POST /api/brain/history/restore": () => {
        restored = true;
        return ok({ restored_from: A, entry: entry("33333333-3333-4333-8333-333333333333", B, []) });
      },
    });
    const c = createHistoryController(client, { onRestored: (files) => restoredFiles.push(files) });
    await c.dispatch({ type: "load" });
    await c.dispatch({ type: "ask-restore", nodeId: A });
    expect(c.state.confirming).toBe(A);
    expect(restored).toBe(false);
    await c.dispatch({ type: "cancel" });
    await c.dispatch({ type: "confirm" });
    expect(restored).toBe(false);

    await c.dispatch({ type: "ask-restore", nodeId: A });
    await c.dispatch({ type: "confirm" });
    expect(calls.find((x) => x.key === "POST /api/brain/history/restore")?.args.body).toEqual({ node_id: A });
    expect(c.state.confirming).toBeNull();
    expect(c.state.message?.level).toBe("info");
    expect(c.state.message?.text).toMatch(
      /^Restored the brain as it was at .*: that is now its newest state\.$/,
    );
    expect(c.state.entries).toHaveLength(3);
    expect(restoredFiles).toEqual([["plan.md"]]);
  });

  it("shows the warden's refusal of a restore while the brain is in use", async () => {
    const { client } = fakeApi({
      "GET /api/brain/history": () => ok({ entries: [entry(B, A, []), entry(A, null, [])] }),
      "POST /api/brain/history/restore": () =>
        refused(
          409,
          "conflict",
          "the brain is in use: the agent's cell is running and may write it at any moment",
        ),
    });
    const restoredFiles: string[][] = [];
    const c = createHistoryController(client, { onRestored: (files) => restoredFiles.push(files) });
    await c.dispatch({ type: "load" });
    await c.dispatch({ type: "ask-restore", nodeId: A });
    await c.dispatch({ type: "confirm" });
    expect(c.state.message).toEqual({
      level: "error",
      text: "Not restored: the brain is in use: the agent's cell is running and may write it at any moment",
    });
    expect(restoredFiles).toEqual([]);
    expect(c.state.busy).toBe(false);
  });
});
