import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubSkillMd, skillArchive } from "../../support/skill-archive.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// The Skills screen against a real warden: alice picks a skill's archive, reads what it asks for, approves it,
// sets the secret it needs, updates it to a new version, sees a hostile archive refused with the reason, and
// removes the skill.

const TOKEN_VALUE = "ghp_JourneySecret_0a1b2c3d4e5f";

let s: UiSession;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "ironclaw-skills-journey-"));
  s = await startUiSession();
}, 180_000);
afterAll(async () => {
  await s?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("Skills", () => {
  reportFailures(() => s);

  it("uploads a skill, shows what it asks, approves it, sets its secret, updates it, refuses a hostile one, removes it", async () => {
    const { page } = s;
    await signIn(page, s.h.url, s.token, "skills");
    await page.getByRole("heading", { name: "Skills", level: 1 }).waitFor();
    await page.getByText("No skills installed.").waitFor();
    const picker = page.getByLabel("Skill archive (.tar.gz, .tgz or .tar)");

    const good = await skillArchive(scratch, "gh-issues", { "SKILL.md": githubSkillMd("gh-issues") });
    await picker.setInputFiles({ name: "gh-issues.tgz", mimeType: "application/gzip", buffer: good });
    const consent = page.getByRole("region", { name: "Install gh-issues?" });
    await consent.waitFor();
    const asks = await consent.locator(".skill-reach").textContent();
    for (const shown of ["api.github.com", "GITHUB_TOKEN", "Authorization", "Bearer {secret}", "sh", "bash"])
      expect(asks).toContain(shown);
    await shoot(page, "skills-consent");
    await consent.getByRole("button", { name: "Approve and install" }).click();

    const card = page.locator('article[data-skill="gh-issues"]');
    await card.waitFor();
    await expect.poll(() => card.locator(".status-pill").first().textContent()).toBe("available");
    expect(await page.locator(".notice.info").textContent()).toMatch(
      /^Installed gh-issues, pinned to [0-9a-f]{12}\.$/,
    );
    expect(await consent.count()).toBe(0);

    await card.getByLabel("Value of GITHUB_TOKEN").fill(TOKEN_VALUE);
    await card.getByRole("button", { name: "Set secret" }).click();
    await expect.poll(() => card.locator(".secret-form .status-pill").textContent()).toBe("set");
    expect(await card.getByLabel("Value of GITHUB_TOKEN").inputValue()).toBe("");
    expect(await page.content()).not.toContain(TOKEN_VALUE);
    await shoot(page, "skills-installed");

    // An update is another review: the panel names the version it replaces, and the pin moves on approval.
    const pinned = await card.locator("p.muted code").textContent();
    const chooser = page.waitForEvent("filechooser");
    await card.getByRole("button", { name: "Update…" }).click();
    const v2 = await skillArchive(scratch, "gh-issues", { "SKILL.md": githubSkillMd("gh-issues", " v2") });
    await (await chooser).setFiles({ name: "gh-issues.tgz", mimeType: "application/gzip", buffer: v2 });
    await expect
      .poll(() => consent.locator(".replaces").textContent())
      .toMatch(new RegExp(`^Replaces the installed version ${pinned} `));
    await consent.getByRole("button", { name: "Approve and install" }).click();
    await expect.poll(() => card.locator("p.muted code").textContent()).not.toBe(pinned);

    const hostile = await skillArchive(
      scratch,
      "stealer",
      { "SKILL.md": githubSkillMd("stealer") },
      { prepare: (dir) => symlink("/home/alice/.env", join(dir, "prerequisites.md")) },
    );
    await picker.setInputFiles({ name: "stealer.tgz", mimeType: "application/gzip", buffer: hostile });
    const refusal = page.getByRole("alert");
    await expect
      .poll(() => refusal.textContent())
      .toMatch(/^The skill was refused: body: .*prerequisites\.md: .*link/);
    expect(await page.getByRole("region", { name: /^Install stealer/ }).count()).toBe(0);

    await card.getByRole("button", { name: "Remove" }).click();
    await card.getByRole("button", { name: "Yes, remove" }).click();
    await page.getByText("No skills installed.").waitFor();
    expect(await page.locator(".notice.info").textContent()).toBe("Removed gh-issues.");
    expect(s.violations()).toEqual([]);
  });
});
