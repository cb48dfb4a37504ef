import { describe, expect, it } from "vitest";
import type { MemoryForgetResult } from "../api/endpoints.js";
import { fakeApi, ok, refused } from "../testing/fake-api.js";
import { createForgetController } from "./forget-controller.js";

const place = {
  path: "memory.md",
  headings: ["Memory", "Garage"],
  start_line: 5,
  end_line: 5,
  hash: "sha256:ab",
};
const previewOf = (text: string): MemoryForgetResult => ({
  applied: false,
  places: [place],
  previews: [text],
  skipped: [],
});

describe("forgetting from the memory inspector", () => {
  it("previews what would go with its text, and forgets only when confirmed", async () => {
    const forgotten: string[][] = [];
    const { client, calls } = fakeApi({
      "POST /api/memory/forget": (args) => {
        const body = args.body as { target: string; apply: boolean };
        return body.apply
          ? ok({ applied: true, places: [place], skipped: [], purge_ms: 40 })
          : ok(previewOf("The garage pin is 7781."));
      },
    });
    const c = createForgetController(client, { onForgotten: (paths) => forgotten.push(paths) });
    await c.dispatch({ type: "preview", target: "garage pin", label: "“garage pin”" });
    expect(calls.map((x) => x.args.body)).toEqual([{ target: "garage pin", apply: false }]);
    expect(c.state.preview?.previews).toEqual(["The garage pin is 7781."]);
    expect(forgotten).toEqual([]);

    await c.dispatch({ type: "confirm" });
    expect(calls.map((x) => x.args.body)).toEqual([
      { target: "garage pin", apply: false },
      { target: "garage pin", apply: true },
    ]);
    expect(c.state.preview).toBeNull();
    expect(c.state.message?.text).toMatch(/^Forgot 1 passage\(s\) in memory\.md\./);
    expect(forgotten).toEqual([["memory.md"]]);
  });

  it("says so when nothing matches, and cancelling sends nothing more", async () => {
    const { client, calls } = fakeApi({
      "POST /api/memory/forget": () => ok({ applied: false, places: [], previews: [], skipped: [] }),
    });
    const c = createForgetController(client);
    await c.dispatch({ type: "preview", target: "zebra", label: "“zebra”" });
    expect(c.state.message).toEqual({
      level: "info",
      text: "Nothing in the brain matches; nothing would be forgotten.",
    });
    await c.dispatch({ type: "cancel" });
    await c.dispatch({ type: "confirm" });
    expect(calls).toHaveLength(1);
  });

  it("shows the warden's refusal and keeps the preview when the forget itself fails", async () => {
    let applied = false;
    const { client } = fakeApi({
      "POST /api/memory/forget": (args) => {
        if (!(args.body as { apply: boolean }).apply) return ok(previewOf("x"));
        applied = true;
        return refused(409, "conflict", "the file changed since the preview");
      },
    });
    const c = createForgetController(client);
    await c.dispatch({ type: "preview", target: "0123456789abcdef0123456789abcdef", label: "this passage" });
    await c.dispatch({ type: "confirm" });
    expect(applied).toBe(true);
    expect(c.state.message).toEqual({
      level: "error",
      text: "Not forgotten: the file changed since the preview",
    });
    expect(c.state.preview?.places).toEqual([place]);
  });
});
