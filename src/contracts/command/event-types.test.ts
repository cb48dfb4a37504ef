import { describe, expect, it } from "vitest";
import { EVENT_TYPE_ALIASES, LEDGER_EVENT_TYPES, normalizeEventType } from "./event-types.js";
import { ledgerEventInputSchema, ledgerEventSchema } from "./ledger-event.js";

const stored = {
  event_id: "01JHQ40A2B4C6D8E0F2G4H6J8K",
  ts: "2026-01-14T16:21:00Z",
  garrison_id: "local",
  theater_id: "demo",
  run_id: "01JHQ3Z8V4K2M6N8P0R2T4W6Y8",
  order_id: "01JHQ3ZB1C3D5E7F9G1H3J5K7M",
  unit_id: "assault_abc123",
  payload: {},
};

describe("normalizeEventType", () => {
  it("rewrites the seed's typo spellings to their canonical names", () => {
    expect(normalizeEventType("ORDER CLAIMED")).toBe("ORDER_CLAIMED");
    expect(normalizeEventType("WORKTREE_Removed")).toBe("WORKTREE_REMOVED");
  });

  it("returns every canonical name unchanged", () => {
    expect(LEDGER_EVENT_TYPES.map(normalizeEventType)).toEqual([...LEDGER_EVENT_TYPES]);
  });

  it("returns undefined for unknown names and for other casings", () => {
    expect(normalizeEventType("ORDER_EXPLODED")).toBeUndefined();
    expect(normalizeEventType("order_claimed")).toBeUndefined();
    expect(normalizeEventType("toString")).toBeUndefined();
  });

  it("never lists a typo among the canonical names", () => {
    for (const typo of Object.keys(EVENT_TYPE_ALIASES)) expect(LEDGER_EVENT_TYPES).not.toContain(typo);
  });
});

describe("event type in the event schemas", () => {
  it("stores a typo spelling under its canonical name", () => {
    const parsed = ledgerEventSchema.parse({ ...stored, type: "ORDER CLAIMED" });
    expect(parsed.type).toBe("ORDER_CLAIMED");
    const input = ledgerEventInputSchema.parse({ ...stored, type: "WORKTREE_Removed" });
    expect(input.type).toBe("WORKTREE_REMOVED");
  });

  it("applies the canonical type's rules to a typo spelling", () => {
    const result = ledgerEventSchema.safeParse({ ...stored, type: "ORDER CLAIMED", order_id: null });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path)).toEqual([["order_id"]]);
  });

  it("names the canonical types, not the typos, when it rejects an unknown type", () => {
    const result = ledgerEventSchema.safeParse({ ...stored, type: "ORDER_EXPLODED" });
    const message = result.error?.issues[0]?.message ?? "";
    expect(message).toContain("ORDER_CLAIMED");
    expect(message).toContain("POLICY_UPDATED");
    expect(message).not.toContain("ORDER CLAIMED");
  });
});
