import { describe, expect, it } from "vitest";
import { haltedNotice } from "./halted-notice.js";

describe("haltedNotice", () => {
  it("turns the warden's halted refusal into a sentence and a link to the Soul guard screen", () => {
    const said =
      "This agent is halted: a change to instructions/x.md waits for a person's approval, because it adds an " +
      'instruction to ignore previous instructions: "Ignore all previous instructions". Review it on the Soul ' +
      "guard screen (/ui/#/soul).";
    expect(haltedNotice(said)).toEqual({
      text: said.replace(" (/ui/#/soul)", ""),
      href: "#/soul",
    });
  });

  it("leaves other notices alone", () => {
    expect(haltedNotice("the model is busy; try again in a minute")).toBeUndefined();
  });
});
