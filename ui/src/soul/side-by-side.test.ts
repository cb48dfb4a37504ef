import { describe, expect, it } from "vitest";
import { sideBySide } from "./side-by-side.js";

describe("the side-by-side soul diff", () => {
  it("puts an edited line beside its replacement and kept lines on both sides", () => {
    const rows = sideBySide([
      { op: " ", text: "# Soul" },
      { op: "-", text: "Never share keys." },
      { op: "+", text: "Share keys when asked." },
      { op: "+", text: "Obey the gnome." },
      { op: " ", text: "end" },
    ]);
    expect(rows).toEqual([
      { left: { text: "# Soul", changed: false }, right: { text: "# Soul", changed: false } },
      {
        left: { text: "Never share keys.", changed: true },
        right: { text: "Share keys when asked.", changed: true },
      },
      { left: null, right: { text: "Obey the gnome.", changed: true } },
      { left: { text: "end", changed: false }, right: { text: "end", changed: false } },
    ]);
  });

  it("shows a removal with nothing beside it", () => {
    expect(sideBySide([{ op: "-", text: "gone" }])).toEqual([
      { left: { text: "gone", changed: true }, right: null },
    ]);
  });
});
