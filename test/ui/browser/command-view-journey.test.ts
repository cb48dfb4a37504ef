import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../../support/model-server.js";
import { api } from "../../support/warden-harness.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// The Command screen against a real warden hosting command: a run planned by the host's model into two orders,
// the second waiting on the first, drawn as a graph whose nodes go to INTEGRATED as the ledger records each merge
// (the first order's first model turn is held until the page shows the graph, so the change is seen live); then
// the watchers' health after a patrol, and the routing policy after a learning tick. The user is the host's admin.

const OBJECTIVE = "Keep a watering log";
const FILES = ["notes/water.md", "notes/schedule.md"];

type Message = { role: string; content?: unknown };

function plan() {
  const order = (file: string, depends_on: string[]) => ({
    key: file.replace(/^notes\/|\.md$/g, ""),
    type: "implement",
    objective: `Write ${file}`,
    acceptance_commands: [`test -s ${file}`],
    depends_on,
  });
  return { orders: [order("notes/water.md", []), order("notes/schedule.md", ["water"])] };
}

let release: () => void = () => undefined;
const released = new Promise<void>((resolve) => {
  release = resolve;
});

/** The planner gets the plan; an order's agent writes its note, then answers with its completion block. */
function script(body: Record<string, unknown>) {
  const messages = (body.messages ?? []) as Message[];
  const text = JSON.stringify(messages);
  if (text.includes("commanding officer")) return reply.text(JSON.stringify(plan()));
  const orderId = /jarvis-order_([0-9A-Za-z]+)/.exec(text)?.[1];
  const file = /Write (notes\/[a-z]+\.md)/.exec(text)?.[1];
  if (!orderId || !file || !FILES.includes(file))
    return reply.status(500, "the journey scripts no other request");
  if (!messages.some((m) => m.role === "tool")) {
    const write = reply.toolCalls([
      { name: "file", arguments: { action: "write", path: `work/${file}`, content: `# ${file}\n` } },
    ]);
    return file === FILES[0] ? reply.held(released, write) : write;
  }
  const completion = {
    ...{ run_id: orderId, branch: `jarvis-order_${orderId}`, commit_sha: "abc1234", files_changed: [file] },
    ...{ test_result: `test -s ${file} passed`, risk: "low - one new note" },
    pr_skipped_reason: "the host integrates the worktree",
  };
  return reply.text(`Wrote ${file}.\n<completion>\n${JSON.stringify(completion)}\n</completion>`);
}

let s: UiSession;
let token: string;
beforeAll(async () => {
  s = await startUiSession();
  s.h.model.respondWith(script);
  token = (await s.h.warden.context.users.add("root", { admin: true })).token;
}, 180_000);
afterAll(async () => {
  release();
  await s?.close();
});

const data = async (response: Response) =>
  ((await response.json()) as { data: Record<string, unknown> }).data;

describe("Command", () => {
  reportFailures(() => s);

  it("draws a run's orders with their dependency and follows them to INTEGRATED, then shows patrol and policy", async () => {
    const { page } = s;
    const root = api(s.h.url, token);
    expect((await root("POST", "/api/theaters", { theater_id: "garden" })).status).toBe(201);
    const started = await data(
      await root("POST", "/api/command/chat", { theater_hint: "garden", message: OBJECTIVE, mode: "async" }),
    );
    const runId = String(started.run_id);
    await signIn(page, s.h.url, token, `command/${runId}`);
    await page.getByRole("heading", { name: "Command", level: 1 }).waitFor();
    await page.locator('.live[data-live="online"]').waitFor();

    // The plan arrives from the ledger: two nodes, one edge from the first order to the one waiting on it.
    const long = { timeout: 180_000, interval: 250 };
    const nodes = page.locator("g.node");
    await expect.poll(() => nodes.count(), long).toBe(2);
    const [first, second] = [nodes.nth(0), nodes.nth(1)];
    const [firstId, secondId] = [
      await first.getAttribute("data-order"),
      await second.getAttribute("data-order"),
    ];
    await expect(
      page.locator(`line.edge[data-from="${firstId}"][data-to="${secondId}"]`).count(),
    ).resolves.toBe(1);
    // The first order's agent waits on its held model turn: it shows as running, the second as still queued.
    await expect.poll(() => first.getAttribute("data-state"), long).toBe("RUNNING");
    expect(await second.getAttribute("data-state")).toBe("QUEUED");
    await shoot(page, "command-running");

    // The page is not reloaded: both orders go to INTEGRATED as integration merges them, in dependency order.
    release();
    await expect.poll(() => first.getAttribute("data-state"), long).toBe("INTEGRATED");
    await expect.poll(() => second.getAttribute("data-state"), long).toBe("INTEGRATED");
    await second.click();
    const facts = page.getByRole("region", { name: /^Order schedule/ });
    const fact = (name: string) => facts.locator(`dt:text-is("${name}") + dd`).textContent();
    await expect.poll(() => fact("Branch")).toBe(`order_${secondId}`);
    const sha = (await fact("Merge commit")) ?? "";
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect((await data(await root("GET", `/api/orders/${secondId}`))).commit_sha).toBe(sha);
    await expect(fact("Gate output")).resolves.toBe("passed");
    await expect(fact("After-action report")).resolves.not.toBe("not written yet");

    // A patrol and a learning tick, then the screen again: the tick's age and the policy's first version.
    expect((await root("POST", "/api/patrol", {})).status).toBe(200);
    const tick = await data(await root("POST", "/api/learn/tick"));
    expect(tick.policy_version).toBe(1);
    await page.reload();
    await expect
      .poll(() => page.locator('[data-field="last-patrol"]').textContent(), long)
      .toMatch(/ s ago$/);
    await page.locator('.policy-versions li[data-version="1"][aria-current="true"]').waitFor();
    await page.getByRole("button", { name: "Version 1" }).click();
    await expect(page.locator("[data-shown-version='1'] ul").first().textContent()).resolves.toContain(
      "implement →",
    );
    // An escalation about the second order (an operator's hand-written one), acknowledged from the page.
    const escalation = { severity: "HIGH", route: "owner", reason: "schedule needs a person's look" };
    const raised = await root("POST", "/api/ledger/events", {
      ...{ type: "ESCALATION_RAISED", garrison_id: "local", theater_id: "garden", run_id: runId },
      ...{ order_id: secondId, payload: escalation },
    });
    expect(raised.status).toBe(201);
    await page.reload();
    const open = page.locator("li[data-escalation]");
    await expect(open.textContent()).resolves.toContain(escalation.reason);
    await shoot(page, "command");
    await open.getByRole("button", { name: "Acknowledge" }).click();
    await page.getByText("No open escalations.").waitFor();
    const left = await data(await root("GET", "/api/escalations?open=1"));
    expect(left.escalations).toEqual([]);
    expect(s.violations()).toEqual([]);
  }, 300_000);
});
