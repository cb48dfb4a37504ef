import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBwrapBackend, defaultRuntime } from "../../../src/cells/index.js";
import { reply } from "../../support/model-server.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// Provenance as a person meets it in the web UI: a reply's certificate one click from the message, verified;
// the brain's history in the memory inspector, a state's changes, and a restore of an earlier state, which
// pauses the agent's idle cell while it writes the brain. The brain is a directory, as on a
// host without loop devices: the warden records a brain it can read after every turn.

const PLAN = "notes/plan.md";

let s: UiSession;
beforeAll(async () => {
  s = await startUiSession(undefined, {
    backend: createBwrapBackend({ runtime: defaultRuntime(), brainImages: false }),
  });
}, 180_000);
afterAll(async () => {
  await s?.close();
});

describe("provenance in the web UI", () => {
  reportFailures(() => s);

  it("opens a chat reply's certificate and sees it verified", async () => {
    const { page } = s;
    await signIn(page, s.h.url, s.token);
    await page.locator('.connection[data-state="online"]').waitFor();
    for (const draft of ["first", "second"]) {
      s.h.model.enqueue(
        reply.toolCalls([
          { name: "file", arguments: { action: "write", path: PLAN, content: `# Plan\n\n${draft} draft\n` } },
        ]),
        reply.text(`Saved the ${draft} draft.`),
      );
      await page.getByLabel("Message", { exact: true }).fill(`Write the ${draft} draft of the plan`);
      await page.keyboard.press("Enter");
      const answer = page.locator('.message.assistant[data-streaming="false"]', {
        hasText: `Saved the ${draft} draft.`,
      });
      // The certificate is issued after the reply: its control appears once the warden lists it.
      await answer.getByRole("button", { name: "certificate" }).waitFor();
    }
    const last = page.locator(".message.assistant", { hasText: "Saved the second draft." });
    await last.getByRole("button", { name: "certificate" }).click();
    const certificate = last.locator(".certificate");
    await certificate.locator(".status-pill", { hasText: /^verified$/ }).waitFor();
    await expect(certificate.locator(".certificate-checks li").count()).resolves.toBeGreaterThan(0);
    await expect(certificate.locator('[data-fact="job"]').textContent()).resolves.toMatch(/^[0-9a-f-]{36}$/);
    await expect(
      certificate.getByRole("link", { name: "Download certificate" }).getAttribute("href"),
    ).resolves.toMatch(/^blob:/);
    await shoot(page, "chat-certificate");
  });

  it("shows the brain's history, a state's diff, and restores an earlier state once the brain is free", async () => {
    const { page } = s;
    await page.goto(`${s.h.url}/ui/#/memory/${PLAN}`);
    await page.locator(".code-editor .cm-content", { hasText: "second draft" }).waitFor();
    const nodes = page.locator("li.history-node");
    await nodes.nth(1).waitFor();
    const newest = nodes.first();
    await expect(newest.locator(".history-files").textContent()).resolves.toContain(PLAN);
    await newest.locator("button.hit-source").click();
    await newest.locator('li[data-change="changed"]', { hasText: PLAN }).waitFor();
    await expect(newest.locator(".history-patch").textContent()).resolves.toContain("+second draft");

    // The state before: the first draft. The agent's cell runs, idle: the restore stops it and goes through, as
    // a new state.
    const earlier = nodes.nth(1);
    await earlier.locator("button.hit-source").click();
    expect(s.h.warden.context.cells.running("alice")).toBeDefined();
    await earlier.getByRole("button", { name: "Restore this state…" }).click();
    await earlier.getByRole("button", { name: "Restore", exact: true }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /^Restored the brain as it was at .*: that is now its newest state\.$/ })
      .waitFor();
    await nodes.nth(2).waitFor();
    await expect(nodes.first().locator(".hit-headings").textContent()).resolves.toMatch(/^restore of /);
    // The file open in the editor is read again: the first draft is back.
    await page.locator(".code-editor .cm-content", { hasText: "first draft" }).waitFor();
    await shoot(page, "memory-history");
    expect(s.violations()).toEqual([]);
  });
});
