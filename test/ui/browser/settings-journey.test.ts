import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../../support/model-server.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// Configuration by conversation in Chromium against a real warden and a real cell: an admin asks their agent in
// the chat for a setting, reads the exact diff on the Settings screen (the file unchanged meanwhile), confirms it
// (the file changes, audited) and reverts it with one button (the file is as it was, audited).

let s: UiSession;
let rootToken: string;
const file = () => join(s.h.home, "ironclawd.toml");

beforeAll(async () => {
  s = await startUiSession();
  rootToken = (await s.h.warden.context.users.add("root", { admin: true })).token;
}, 180_000);
afterAll(async () => {
  await s?.close();
});

describe("Settings", () => {
  reportFailures(() => s);

  it("shows the agent's proposal with its diff, applies it on Confirm and restores the file on Revert", async () => {
    const { page } = s;
    const before = readFileSync(file(), "utf8");
    await signIn(page, s.h.url, rootToken);
    s.h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            summary: "Accept chat messages up to 512 KiB",
            changes: [{ path: "limits.max_message_bytes", value: 524288 }],
          },
        },
      ]),
      reply.text("I proposed it: confirm it on the Settings screen."),
    );
    await page.locator('.connection[data-state="online"]').waitFor();
    await page.getByLabel("Message", { exact: true }).fill("let people send longer messages");
    await page.keyboard.press("Enter");
    await page.locator('.message.assistant[data-streaming="false"]', { hasText: "I proposed it" }).waitFor();

    await page.getByRole("link", { name: "Settings" }).click();
    const card = page.locator(".settings-proposal", { hasText: "Accept chat messages up to 512 KiB" });
    await card.waitFor();
    expect(await card.locator(".proposal-status").textContent()).toBe("pending");
    expect(await card.locator(".proposal-diff").textContent()).toContain("-# [limits]\n+[limits]");
    expect(await card.locator(".proposal-diff").textContent()).toContain("+max_message_bytes = 524288");
    expect(readFileSync(file(), "utf8")).toBe(before);
    await shoot(page, "settings-proposal");

    await card.getByRole("button", { name: "Confirm" }).click();
    await card.locator(".proposal-status", { hasText: "applied" }).waitFor();
    await page.getByText("Applied to ironclawd.toml; it takes effect when the warden restarts.").waitFor();
    expect(readFileSync(file(), "utf8")).toContain("\nmax_message_bytes = 524288\n");

    await card.getByRole("button", { name: "Revert" }).click();
    await card.locator(".proposal-status", { hasText: "reverted" }).waitFor();
    expect(readFileSync(file(), "utf8")).toBe(before);
    const trail = s.h.warden.context.audit
      .list({ userId: "root" })
      .filter((e) => e.action.startsWith("config."))
      .map((e) => [e.action, e.actor, e.detail?.via ?? null]);
    expect(trail).toEqual([
      ["config.reverted", "user:root", "ui"],
      ["config.applied", "user:root", "ui"],
      ["config.proposed", "cell:root", null],
    ]);
    expect(s.violations()).toEqual([]);
  });

  it("is not offered to a user who is not an admin", async () => {
    const { page } = s;
    await page.context().clearCookies();
    await signIn(page, s.h.url, s.token);
    expect(await page.getByRole("link", { name: "Settings" }).count()).toBe(0);
  });
});
