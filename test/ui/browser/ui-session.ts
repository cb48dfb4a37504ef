import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { PACKAGE_ROOT } from "../../../src/cells/index.js";
import { startWardenHarness, type WardenHarness } from "../../support/warden-harness.js";

/** Debian's chromium (CI installs it with apt); override with IRONCLAW_CHROMIUM. */
export const CHROMIUM = process.env.IRONCLAW_CHROMIUM ?? "/usr/bin/chromium";

/** Where screenshots go: docs/screenshots when IRONCLAW_UPDATE_SCREENSHOTS=1, else a scratch folder. */
export const SCREENSHOTS = process.env.IRONCLAW_UPDATE_SCREENSHOTS
  ? join(PACKAGE_ROOT, "docs", "screenshots")
  : join(PACKAGE_ROOT, ".ironclaw-test-screenshots");

/**
 * The few page globals the tests touch inside page.evaluate, typed here: the test program has no DOM library
 * (adding one would change the types of every file in it).
 */
export interface PageWindow {
  innerWidth: number;
  document: {
    documentElement: { scrollWidth: number };
    body: object;
    head: { append(node: object): void };
    createElement(tag: string): { textContent: string | null };
  };
  getComputedStyle(node: object): { backgroundColor: string };
}

export interface UiSession {
  h: WardenHarness;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  token: string;
  /** Content-Security-Policy violations any page reported since the start (there must be none). */
  violations(): string[];
  close(): Promise<void>;
}

// Runs in the page before any of its scripts: reports CSP violations to the test (across navigations), and
// records every state a streamed answer passes through, so a test can prove it grew in steps without racing.
const RECORDER = `
  document.addEventListener("securitypolicyviolation", (e) => window.__reportCsp(e.violatedDirective + " " + e.blockedURI));
  window.__stream = [];
  new MutationObserver(() => {
    for (const m of document.querySelectorAll('.message.assistant[data-streaming="true"]'))
      window.__stream.push(m.textContent);
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
`;

/** A real warden (bwrap cells, scripted model server) with the built UI, and Chromium on its /ui page. */
export async function startUiSession(viewport = { width: 1280, height: 800 }): Promise<UiSession> {
  if (!existsSync(join(PACKAGE_ROOT, "ui", "dist", "index.html")))
    throw new Error("ui/dist is not built: run `npm run build:ui` (npm run test:ui does it first)");
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);
  await mkdir(SCREENSHOTS, { recursive: true });
  const h = await startWardenHarness();
  const token = await h.addUser("alice");
  // As root Chromium's own sandbox cannot start; the page is ours and only loopback is reachable.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport, colorScheme: "light", timezoneId: "Europe/Berlin" });
  const violations: string[] = [];
  await context.exposeFunction("__reportCsp", (violation: string) => {
    violations.push(violation);
  });
  await context.addInitScript(RECORDER);
  const page = await context.newPage();
  return {
    h,
    browser,
    context,
    page,
    token,
    violations: () => [...violations],
    async close() {
      await browser.close().catch(() => undefined);
      await h.close();
    },
  };
}

export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/ui/`);
  await page.getByLabel("User token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Screens" }).waitFor();
}

export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), animations: "disabled", caret: "hide" });
}
