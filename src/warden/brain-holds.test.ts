import { describe, expect, it } from "vitest";
import { BrainHolds } from "./brain-holds.js";

describe("BrainHolds", () => {
  it("refuses a hold while a turn of that user runs, and allows one for another user", async () => {
    const holds = new BrainHolds();
    const leave = await holds.enterTurn("ada");
    await expect(holds.hold("ada", async () => "restored")).rejects.toThrow(/a turn is being answered/);
    await expect(holds.hold("bob", async () => "restored")).resolves.toBe("restored");
    leave();
    leave();
    expect(holds.turnsRunning("ada")).toBe(0);
    await expect(holds.hold("ada", async () => "restored")).resolves.toBe("restored");
  });

  it("keeps a turn that arrives during a hold waiting until the hold ends, and refuses a second hold", async () => {
    const holds = new BrainHolds();
    const order: string[] = [];
    let finish = () => {};
    const held = holds.hold("ada", async () => {
      order.push("hold starts");
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      order.push("hold ends");
    });
    const turn = holds.enterTurn("ada").then((leave) => {
      order.push("turn starts");
      leave();
    });
    await expect(holds.hold("ada", async () => undefined)).rejects.toThrow(/already being restored/);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["hold starts"]);
    finish();
    await Promise.all([held, turn]);
    expect(order).toEqual(["hold starts", "hold ends", "turn starts"]);
  });
});
