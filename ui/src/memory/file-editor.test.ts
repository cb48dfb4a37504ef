import { describe, expect, it } from "vitest";
import { deferred, fakeApi, ok, refused } from "../testing/fake-api.js";
import { createFileEditor, headingLine } from "./file-editor.js";

const soulChange = {
  id: "c1",
  userId: "alice",
  path: "soul.md",
  before: "a",
  after: "b",
  reasons: ["adds an instruction to ignore previous instructions"],
  source: "api",
  status: "pending",
  createdAt: "2026-01-01T00:00:00Z",
  decidedAt: null,
  decidedBy: null,
  applied: false,
};

describe("the file editor", () => {
  it("saves the draft, and then the file is no longer dirty", async () => {
    const api = fakeApi({
      "GET /api/brain/file": () => ok({ path: "memory.md", content: "# Memory\n" }),
      "PUT /api/brain/file": () => ok({ path: "memory.md", written: true }),
    });
    const editor = createFileEditor(api.client);
    await editor.dispatch({ type: "open", path: "memory.md" });
    await editor.dispatch({ type: "edit", text: "# Memory\nquince\n" });
    expect(editor.dirty()).toBe(true);
    await editor.dispatch({ type: "save" });
    expect(api.calls.at(-1)?.args).toEqual({ body: { path: "memory.md", content: "# Memory\nquince\n" } });
    expect(editor.dirty()).toBe(false);
    expect(editor.state.message).toEqual({ level: "ok", text: "Saved memory.md." });
  });

  it("shows an edit the soul guard held as waiting for approval, not unsaved, and says why", async () => {
    const api = fakeApi({
      "GET /api/brain/file": () => ok({ path: "soul.md", content: "a" }),
      "PUT /api/brain/file": () => ({
        ok: true,
        status: 202,
        data: { path: "soul.md", written: false, held: soulChange },
      }),
    });
    const editor = createFileEditor(api.client);
    await editor.dispatch({ type: "open", path: "soul.md" });
    await editor.dispatch({ type: "edit", text: "b" });
    await editor.dispatch({ type: "save" });
    // Not "unsaved": it waits for a person's approval, and Save has nothing more to send.
    expect(editor.dirty()).toBe(false);
    expect(editor.waiting()).toBe(true);
    expect(editor.state.message?.text).toBe(
      "Waiting for approval: this edit was not written, because it adds an instruction to ignore previous " +
        "instructions. The agent is halted until a person decides on the Soul guard screen.",
    );
    // Typing again makes it a draft of its own.
    await editor.dispatch({ type: "edit", text: "c" });
    expect(editor.dirty()).toBe(true);
    expect(editor.waiting()).toBe(false);
  });

  it("shows each problem of a refused jobs.toml with its line and rule", async () => {
    const api = fakeApi({
      "GET /api/brain/file": () => ok({ path: "cron/jobs.toml", content: "" }),
      "PUT /api/brain/file": () =>
        refused(400, "validation_failed", "x", [
          { path: "cron/jobs.toml line 5 (jobs[0].enabled)", message: "must be true or false" },
        ]),
    });
    const editor = createFileEditor(api.client);
    await editor.dispatch({ type: "open", path: "cron/jobs.toml" });
    await editor.dispatch({ type: "edit", text: 'enabled = "yes"' });
    await editor.dispatch({ type: "save" });
    expect(editor.state.message).toEqual({
      level: "error",
      text: "Not saved. cron/jobs.toml line 5 (jobs[0].enabled): must be true or false",
    });
  });

  it("asks before leaving unsaved changes, and a slow read of the file left behind is dropped", async () => {
    const slow = deferred<ReturnType<typeof ok>>();
    const api = fakeApi({
      "GET /api/brain/file": (args) => {
        const path = (args.query as { path: string }).path;
        return path === "slow.md" ? (slow.promise as never) : ok({ path, content: `text of ${path}` });
      },
    });
    const editor = createFileEditor(api.client);
    await editor.dispatch({ type: "open", path: "a.md" });
    await editor.dispatch({ type: "edit", text: "changed" });
    await editor.dispatch({ type: "open", path: "b.md" });
    expect(editor.state).toMatchObject({ path: "a.md", pendingOpen: "b.md", draft: "changed" });
    const leaving = editor.dispatch({ type: "open", path: "slow.md", force: true });
    await editor.dispatch({ type: "open", path: "b.md", force: true });
    slow.resolve(ok({ path: "slow.md", content: "late" }) as never);
    await leaving;
    expect(editor.state).toMatchObject({ path: "b.md", draft: "text of b.md", pendingOpen: null });
  });
});

describe("opening a file at a cited heading", () => {
  it("reveals the line of the heading with that text, and falls back to the line given otherwise", async () => {
    const text =
      "# Session x — 2026-03-03\n\nAgent: a\n\n## 09:15:00 — user\n\nhi\n\n## 09:15:00 — assistant ##\n";
    expect(headingLine(text, "09:15:00 — assistant")).toBe(9);
    const { client } = fakeApi({ "GET /api/brain/file": () => ok({ path: "s.md", content: text }) });
    const editor = createFileEditor(client);
    await editor.dispatch({ type: "open", path: "s.md", heading: "09:15:00 — user" });
    expect(editor.state.reveal?.line).toBe(5);
    await editor.dispatch({ type: "open", path: "s.md", heading: "10:00:00 — user", line: 3 });
    expect(editor.state.reveal?.line).toBe(3);
  });

  it("opens a search hit at its lines, and shows another hit of a file being edited without losing the edits", async () => {
    const { client, calls } = fakeApi({
      "GET /api/brain/file": () => ok({ path: "memory.md", content: "a\nb\nc\nd\ne\n" }),
    });
    const editor = createFileEditor(client);
    await editor.dispatch({ type: "open", path: "memory.md", line: 2, endLine: 4 });
    expect(editor.state.reveal).toMatchObject({ line: 2, end: 4 });
    await editor.dispatch({ type: "edit", text: "a\nb\nc\nd\ne\nnew\n" });
    await editor.dispatch({ type: "open", path: "memory.md", line: 5, endLine: 5 });
    expect(editor.state.reveal).toMatchObject({ line: 5, end: 5 });
    expect(editor.state.draft).toContain("new");
    expect(calls.filter((c) => c.key === "GET /api/brain/file")).toHaveLength(1);
  });
});
