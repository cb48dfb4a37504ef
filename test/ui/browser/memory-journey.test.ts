import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { reply } from "../../support/model-server.js";
import { api } from "../../support/warden-harness.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// Memory that remembers conversations, as a person meets it in the web UI: an answer's citation leads to the
// passage in the memory inspector, and a fact the agent kept using is added to memory.md only on approval.

const LOG = "logs/2026-03-01.md";
const CITE = `[${LOG}#Water pressure]`;

let s: UiSession;
beforeAll(async () => {
  s = await startUiSession();
  const call = api(s.h.url, s.token);
  const put = await call("PUT", "/api/brain/file", {
    path: LOG,
    content: "# 2026-03-01\n\n## Water pressure\n\nThe heating water pressure should sit at 1.5 bar.\n",
  });
  expect(put.status).toBe(200);
  // Three conversations on two days use the note. The agent's clock is the warden's stamp on each message:
  // those days are set ahead of now, so going back to the real clock afterwards never looks like a stall.
  const ahead = Date.now() + 10 * 86_400_000;
  vi.useFakeTimers({ toFake: ["Date"] });
  try {
    for (const at of [ahead, ahead + 3_600_000, ahead + 86_400_000]) {
      vi.setSystemTime(at);
      s.h.model.enqueue(
        reply.toolCalls([
          { name: "memory", arguments: { action: "recall", query: "heating water pressure" } },
        ]),
        reply.text(`Keep it at 1.5 bar ${CITE}.`),
      );
      const turn = await call("POST", "/api/chat", { text: "What should the heating water pressure be?" });
      expect(turn.status).toBe(200);
    }
  } finally {
    vi.useRealTimers();
  }
}, 240_000);
afterAll(async () => {
  await s?.close();
});

describe("memory in the web UI", () => {
  reportFailures(() => s);
  it("shows an answer's citation as a link that opens the cited passage in the memory inspector", async () => {
    const { page } = s;
    await signIn(page, s.h.url, s.token);
    await page.locator('.connection[data-state="online"]').waitFor();
    s.h.model.enqueue(reply.text(`The pressure should sit at 1.5 bar ${CITE}.`));
    await page.getByLabel("Message", { exact: true }).fill("What pressure again?");
    await page.keyboard.press("Enter");
    const answer = page.locator('.message.assistant[data-streaming="false"]', { hasText: "should sit at" });
    await answer.waitFor();
    const link = answer.locator("a.citation");
    await expect(link.textContent()).resolves.toBe(CITE);
    await link.click();
    await page.locator(".editor-path", { hasText: LOG }).waitFor();
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/memory/${LOG}#Water pressure`);
    await page.locator(".code-editor .cm-content", { hasText: "1.5 bar" }).waitFor();
    // The heading's line is the one brought into view and holding the cursor.
    await expect(page.locator(".code-editor .cm-activeLine").textContent()).resolves.toBe(
      "## Water pressure",
    );
  });

  it("adds a proposed fact to memory.md only when the person approves it, with its source", async () => {
    const { page } = s;
    const proposal = page.locator("li.promotion", { hasText: "1.5 bar" });
    await proposal.waitFor();
    await expect(proposal.textContent()).resolves.toContain("Used in 3 conversations on 2 days.");
    const before = (await (await api(s.h.url, s.token)("GET", "/api/brain/file?path=memory.md")).json()) as {
      data: { content: string };
    };
    expect(before.data.content).not.toContain("1.5 bar");
    await proposal.getByRole("button", { name: /^Approve/ }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /^Added to memory\.md \(lines \d+–\d+\)\.$/ })
      .waitFor();
    await expect(proposal.count()).resolves.toBe(0);
    await page.locator(".editor-path", { hasText: "memory.md" }).waitFor();
    await page
      .locator(".code-editor .cm-content", { hasText: "_Source: [logs/2026-03-01.md#Water pressure]" })
      .waitFor();
    expect(s.violations()).toEqual([]);
  });

  it("explains why a passage was found, and forgets it for good only after showing what would go", async () => {
    const { page } = s;
    const call = api(s.h.url, s.token);
    const put = await call("PUT", "/api/brain/file", {
      path: "notes/garage.md",
      content: "# Garage\n\nThe garage door pin is 7781.\n\n## Bikes\n\nTwo bikes hang on the left wall.\n",
    });
    expect(put.status).toBe(200);
    await page.getByLabel("Search memory").fill("garage door pin");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const hit = page.locator("li.hit", { hasText: "7781" }).first();
    await hit.waitFor();
    await expect(hit.locator(".hit-why").textContent()).resolves.toMatch(/lexical #\d/);

    await hit.getByRole("button", { name: "Forget…" }).click();
    const confirm = page.locator(".forget-confirm");
    await confirm.waitFor();
    await expect(confirm.locator(".forget-text").first().textContent()).resolves.toContain("7781");
    await shoot(page, "memory-forget");
    // Nothing is gone until the person confirms.
    const still = (await (await call("GET", "/api/brain/file?path=notes%2Fgarage.md")).json()) as {
      data: { content: string };
    };
    expect(still.data.content).toContain("7781");

    await confirm.getByRole("button", { name: "Forget for good" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /^Forgot 1 passage\(s\) in notes\/garage\.md\./ })
      .waitFor();
    // The status comes first; the hit list is redrawn after it.
    await expect.poll(() => page.locator("li.hit", { hasText: "7781" }).count()).toBe(0);
    const after = (await (await call("GET", "/api/brain/file?path=notes%2Fgarage.md")).json()) as {
      data: { content: string };
    };
    expect(after.data.content).not.toContain("7781");
    expect(after.data.content).toContain("Two bikes hang on the left wall.");
    expect(s.violations()).toEqual([]);
  });
});
