import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../support/warden-harness.js";
import { reportFailures, signIn, startUiSession, type UiSession } from "./ui-session.js";

// Signing out everywhere, as a person does it: signed in on two devices (two browser contexts), one click on
// the first ends both, and the second, idle on the chat screen, falls back to the sign-in form by itself.

let s: UiSession;
beforeAll(async () => {
  s = await startUiSession();
}, 180_000);
afterAll(async () => {
  await s?.close();
});

describe("Sign out everywhere", () => {
  reportFailures(() => s);

  it("ends the sessions on every device; the other one shows the sign-in form without being touched", async () => {
    const { page } = s;
    const other = await (await s.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page, s.h.url, s.token);
    await signIn(other, s.h.url, s.token);
    // Positive control: the second device is signed in, its chat socket open.
    await other.locator('.connection[data-state="online"]').waitFor();

    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await expect
      .poll(() => page.getByRole("alert").first().textContent())
      .toMatch(/^You are signed out everywhere: 2 browser sessions ended\./);
    await page.getByLabel("User token").waitFor();

    // The warden closed the other device's socket; asking who is signed in, the page learns it is not.
    await other.getByLabel("User token").waitFor({ timeout: 15_000 });
    await expect(other.getByRole("alert").first().textContent()).resolves.toMatch(/sign-in has ended/);

    // The token was not rotated: it still signs in, and the API still takes it.
    await signIn(page, s.h.url, s.token);
    expect((await api(s.h.url, s.token)("GET", "/api/me")).status).toBe(200);
    await other.context().close();
  });
});
