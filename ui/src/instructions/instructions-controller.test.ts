import { describe, expect, it } from "vitest";
import { fakeApi, ok } from "../testing/fake-api.js";
import { createInstructionsController } from "./instructions-controller.js";

const held = {
  id: "c1",
  userId: "alice",
  path: "instructions/tone.md",
  before: null,
  after: "# style\n",
  reasons: ["creates instructions/tone.md, a new file that would enter the system prompt"],
  source: "api",
  status: "pending",
  createdAt: "2026-01-01T00:00:00Z",
  decidedAt: null,
  decidedBy: null,
  applied: false,
};

describe("the instructions controller", () => {
  it("keeps the original when the renamed copy is held, and says it waits for approval", async () => {
    const api = fakeApi({
      "GET /api/brain/files": () =>
        ok({ path: "instructions", entries: [{ path: "instructions/style.md", kind: "file" as const }] }),
      "GET /api/brain/file": () => ok({ path: "instructions/style.md", content: "# style\n" }),
      "PUT /api/brain/file": () => ({
        ok: true,
        status: 202,
        data: { path: "instructions/tone.md", written: false, held },
      }),
    });
    const c = createInstructionsController(api.client);
    await c.dispatch({ type: "start" });
    await c.dispatch({ type: "rename", from: "instructions/style.md", to: "tone" });
    expect(api.calls.map((call) => call.key)).not.toContain("DELETE /api/brain/file");
    expect(c.state.message).toEqual({
      level: "info",
      text:
        "Waiting for approval: instructions/tone.md was not written, because it creates instructions/tone.md, a " +
        "new file that would enter the system prompt. instructions/style.md stays as it is. The agent is halted " +
        "until a person decides on the Soul guard screen.",
    });
  });
});
