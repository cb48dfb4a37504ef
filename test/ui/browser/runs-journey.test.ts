import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../support/warden-harness.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// The Runs screen against a real warden hosting command: a first theater created inline, a run started, the
// run's page kept current from the ledger's event stream (a cancel made elsewhere shows without a reload), and
// a cancel from the page behind its confirmation.

let s: UiSession;
beforeAll(async () => {
  s = await startUiSession();
}, 180_000);
afterAll(async () => {
  await s?.close();
});

describe("Runs", () => {
  reportFailures(() => s);

  it("creates the first theater inline, starts a run, follows it live and cancels one from the page", async () => {
    const { page } = s;
    await signIn(page, s.h.url, s.token, "runs");
    await page.getByRole("heading", { name: "Runs", level: 1 }).waitFor();

    // A repository outside theaters/ is an admin's to name: the refusal lands under the field it names.
    await page.getByLabel("Theater id").fill("garden");
    await page.getByLabel("Repository path (optional)").fill("/srv/elsewhere");
    await page.getByRole("button", { name: "Create theater" }).click();
    const pathField = page.getByLabel("Repository path (optional)");
    await expect.poll(() => pathField.getAttribute("aria-invalid")).toBe("true");
    await expect(page.locator("#theater-repo-problem").textContent()).resolves.toMatch(
      /^repo_path: only an admin/,
    );

    await pathField.fill("");
    await page.getByRole("button", { name: "Create theater" }).click();
    await expect.poll(() => page.getByLabel("Theater", { exact: true }).inputValue()).toBe("garden");

    // Nothing to start without an objective: said under the field, nothing sent.
    await page.getByRole("button", { name: "Start run" }).click();
    await expect(page.locator("#run-objective-problem").textContent()).resolves.toBe(
      "Say what the run should achieve.",
    );
    await page.getByLabel("Objective").fill("Water the quince every morning");
    await page.getByRole("button", { name: "Start run" }).click();
    await page.getByRole("heading", { name: "Water the quince every morning", level: 2 }).waitFor();
    await page.locator('.live[data-live="online"]').waitFor();
    const runId = decodeURIComponent(page.url().split("#/runs/")[1] ?? "");
    expect(runId).not.toBe("");
    const status = page.locator('[data-field="run-status"]');
    await expect(status.textContent()).resolves.toBe("OPEN");
    await expect(page.locator(`tr[data-run="${runId}"]`).textContent()).resolves.toContain("garden");

    // Cancelled elsewhere (the API, another device): the page learns it from the ledger, not from a reload.
    const answer = await api(s.h.url, s.token)("POST", `/api/runs/${runId}/cancel`, {});
    expect(answer.status).toBe(200);
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe("CANCELLED");
    await expect(page.getByRole("button", { name: "Cancel run" }).count()).resolves.toBe(0);

    // A second run, cancelled from the page: asked first, kept when the user says so, then cancelled.
    await page.getByRole("link", { name: "← All runs" }).click();
    await page.getByLabel("Objective").fill("Prune the quince in March");
    await page.getByRole("button", { name: "Start run" }).click();
    await page.getByRole("heading", { name: "Prune the quince in March", level: 2 }).waitFor();
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.getByRole("button", { name: "Keep it running" }).click();
    await expect(status.textContent()).resolves.toBe("OPEN");
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.getByRole("button", { name: "Yes, cancel the run" }).click();
    await expect.poll(() => status.textContent()).toBe("CANCELLED");
    await expect(page.locator("tbody tr").count()).resolves.toBe(2);
    await shoot(page, "runs");
    expect(s.violations()).toEqual([]);
  });
});
