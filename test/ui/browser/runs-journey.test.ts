import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../../support/model-server.js";
import { api } from "../../support/warden-harness.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// The Runs screen against a real warden hosting command: a first theater created inline, a run started from the
// form and carried by command to its reply — planned by the host's model into two orders, each worked by an agent
// in its own cell and worktree, gated and merged — while the page follows the ledger; then a second run cancelled
// from the page while its order is being worked. The model is the scripted server, answering by who asks.

const WATER = "Water the quince every morning";
const PRUNE = "Prune the quince in March";

const order = (file: string) => ({
  key: file.replace(/^notes\/|\.md$/g, ""),
  type: "implement",
  objective: `Write ${file}`,
  acceptance_commands: [`test -s ${file}`],
});

type Message = { role: string; content?: unknown };

/**
 * The planner gets a plan (two orders for the first run, one for the second); an order's agent writes its note,
 * then answers with its completion block — except the second run's, whose answer never comes, so that run is
 * cancelled while its order is being worked.
 */
function script(body: Record<string, unknown>) {
  const messages = (body.messages ?? []) as Message[];
  const text = JSON.stringify(messages);
  if (text.includes("commanding officer")) {
    const files = text.includes(PRUNE) ? ["notes/prune.md"] : ["notes/water.md", "notes/schedule.md"];
    return reply.text(JSON.stringify({ orders: files.map(order) }));
  }
  const orderId = /jarvis-order_([0-9A-Za-z]+)/.exec(text)?.[1];
  const file = /Write (notes\/[a-z]+\.md)/.exec(text)?.[1];
  if (!orderId || !file) return reply.status(500, "the runs journey scripts no other request");
  if (file === "notes/prune.md") return reply.stall();
  if (!messages.some((m) => m.role === "tool"))
    return reply.toolCalls([
      { name: "file", arguments: { action: "write", path: `work/${file}`, content: `# ${file}\n` } },
    ]);
  const completion = {
    ...{ run_id: orderId, branch: `jarvis-order_${orderId}`, commit_sha: "abc1234", files_changed: [file] },
    ...{ test_result: `test -s ${file} passed`, risk: "low - one new note" },
    pr_skipped_reason: "the host integrates the worktree",
  };
  return reply.text(`Wrote ${file}.\n<completion>\n${JSON.stringify(completion)}\n</completion>`);
}

let s: UiSession;
beforeAll(async () => {
  s = await startUiSession();
  s.h.model.respondWith(script);
}, 180_000);
afterAll(async () => {
  // The second run's order waits on a model answer that never comes: ending the model's connections ends its turn.
  await s?.h.model.close();
  await s?.close();
});

describe("Runs", () => {
  reportFailures(() => s);

  it("creates the first theater inline, starts a run that command carries to its reply live, and cancels one mid-run", async () => {
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
    await page.getByLabel("Objective").fill(WATER);
    await page.getByRole("button", { name: "Start run" }).click();
    await page.getByRole("heading", { name: WATER, level: 2 }).waitFor();
    await page.locator('.live[data-live="online"]').waitFor();
    const runId = decodeURIComponent(page.url().split("#/runs/")[1] ?? "");
    expect(runId).not.toBe("");
    await expect(page.locator(`tr[data-run="${runId}"]`).textContent()).resolves.toContain("garden");

    // The page is not reloaded: the plan's orders, their branches, merges and the reply arrive from the ledger.
    const status = page.locator('[data-field="run-status"]');
    const long = { timeout: 180_000, interval: 250 };
    await expect.poll(() => status.textContent(), long).toBe("COMPLETE");
    await expect(page.locator(".run-summary").textContent()).resolves.toContain(
      "Done: 2 of 2 orders completed and integrated.",
    );
    const cards = page.locator("li[data-order]");
    await expect(cards.count()).resolves.toBe(2);
    const alice = api(s.h.url, s.token);
    for (const card of await cards.all()) {
      const fact = (name: string) => card.locator(`dt:text-is("${name}") + dd`).textContent();
      // The run concluded on the ledger's last event; each card catches up with its own snapshot.
      await expect.poll(() => fact("Integration")).toBe("INTEGRATED");
      await expect(card.locator(".status-pill").textContent()).resolves.toBe("COMPLETED");
      const orderId = (await card.getAttribute("data-order")) ?? "";
      await expect(fact("Branch")).resolves.toBe(`order_${orderId}`);
      const sha = await fact("Merge commit");
      expect(sha).toMatch(/^[0-9a-f]{40}$/);
      const snapshot = (await (await alice("GET", `/api/orders/${orderId}`)).json()) as {
        data: { commit_sha: string };
      };
      expect(snapshot.data.commit_sha).toBe(sha);
      // What the order's after-action report says it did, as its AAR_WRITTEN carried it.
      await expect(fact("After-action report")).resolves.toContain("review requested");
    }
    await expect(page.getByRole("button", { name: "Cancel run" }).count()).resolves.toBe(0);
    await shoot(page, "runs");

    // A second run, cancelled from the page while its order is being worked: asked first, kept when the user
    // says so, then cancelled, the order with it.
    await page.getByRole("link", { name: "← All runs" }).click();
    await page.getByLabel("Objective").fill(PRUNE);
    await page.getByRole("button", { name: "Start run" }).click();
    await page.getByRole("heading", { name: PRUNE, level: 2 }).waitFor();
    const working = (r: object) =>
      ["jarvis-order_", "notes/prune.md"].every((t) => JSON.stringify(r).includes(t));
    await expect.poll(() => s.h.model.chatRequests().some(working), long).toBe(true);
    await cards.first().waitFor();
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.getByRole("button", { name: "Keep it running" }).click();
    await expect(status.textContent()).resolves.toBe("OPEN");
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.getByRole("button", { name: "Yes, cancel the run" }).click();
    await expect.poll(() => status.textContent()).toBe("CANCELLED");
    await expect.poll(() => cards.first().locator(".status-pill").textContent()).toBe("CANCELLED");
    await expect(cards.count()).resolves.toBe(1);
    await expect(page.locator("tbody tr").count()).resolves.toBe(2);
    expect(s.violations()).toEqual([]);
  }, 300_000);
});
