import { describe, expect, it } from "vitest";
import type { MemoryPromotion } from "../api/endpoints.js";
import { fakeApi, ok, refused } from "../testing/fake-api.js";
import { createPromotionController } from "./promotion-controller.js";

const proposal = (id: string): MemoryPromotion => ({
  id,
  chunk_id: `c-${id}`,
  path: "logs/2026-03-01.md",
  headings: ["2026-03-01", "Water pressure"],
  text: "## Water pressure\n\n1.5 bar",
  sessions: 3,
  days: 2,
  status: "pending",
  created_at: "2026-03-05T09:00:00.000Z",
  decided_at: null,
  result_ref: null,
});

describe("the promotion proposals of the memory inspector", () => {
  it("lists pending proposals, and approving one says where the fact went and drops it from the list", async () => {
    const approved: string[] = [];
    const { client, calls } = fakeApi({
      "GET /api/memory/promotions": () => ok({ proposals: [proposal("p1"), proposal("p2")] }),
      "POST /api/memory/promotions/:id/approve": (args) =>
        ok({
          ...proposal(String((args.params as { id: string }).id)),
          status: "approved",
          result_ref: "memory.md#L9-L12",
        }),
    });
    const c = createPromotionController(client, { onApproved: (ref) => approved.push(ref) });
    await c.dispatch({ type: "load" });
    expect(calls[0]?.args).toEqual({ query: { status: "pending" } });
    expect(c.state.pending.map((p) => p.id)).toEqual(["p1", "p2"]);
    await c.dispatch({ type: "decide", id: "p1", decision: "approve" });
    expect(c.state.pending.map((p) => p.id)).toEqual(["p2"]);
    expect(c.state.message).toEqual({ level: "info", text: "Added to memory.md (lines 9–12)." });
    expect(approved).toEqual(["memory.md#L9-L12"]);
  });

  it("shows a refusal and the list as it is now when a proposal was decided elsewhere", async () => {
    let listed = 0;
    const { client } = fakeApi({
      "GET /api/memory/promotions": () => ok({ proposals: listed++ === 0 ? [proposal("p1")] : [] }),
      "POST /api/memory/promotions/:id/reject": () =>
        refused(409, "conflict", "promotion p1 was already approved"),
    });
    const c = createPromotionController(client);
    await c.dispatch({ type: "load" });
    await c.dispatch({ type: "decide", id: "p1", decision: "reject" });
    expect(c.state.message).toEqual({
      level: "error",
      text: "Not rejected: promotion p1 was already approved",
    });
    expect(c.state.pending).toEqual([]);
    expect(c.state.deciding).toBeNull();
  });
});
