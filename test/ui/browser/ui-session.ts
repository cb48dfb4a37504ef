import { existsSync } from "node:fs";
import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterEach } from "vitest";
import { PACKAGE_ROOT } from "../../../src/cells/index.js";
import { createLogger } from "../../../src/core/index.js";
import {
  startWardenHarness,
  type WardenHarness,
  type WardenHarnessOptions,
} from "../../support/warden-harness.js";

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
  /** What the page went through and shows now: printed when a test fails, so a failure elsewhere can be read. */
  report(): Promise<string>;
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
export async function startUiSession(
  viewport = { width: 1280, height: 800 },
  /** The cells' backend, and the warden's config and egress dialling, when a journey needs other than the defaults. */
  options: Pick<WardenHarnessOptions, "backend" | "configure" | "egressDial"> = {},
): Promise<UiSession> {
  if (!existsSync(join(PACKAGE_ROOT, "ui", "dist", "index.html")))
    throw new Error("ui/dist is not built: run `npm run build:ui` (npm run test:ui does it first)");
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);
  await mkdir(SCREENSHOTS, { recursive: true });
  // The warden's warnings and errors are kept for the failure report (the last 100 lines).
  const wardenLog: string[] = [];
  const logger = createLogger(
    "warden-ui",
    { level: "warn" },
    {
      write(line: string) {
        wardenLog.push(line.trimEnd());
        if (wardenLog.length > 100) wardenLog.shift();
      },
    },
  );
  const h = await startWardenHarness({ logger, ...options });
  const token = await h.addUser("alice");
  // As root Chromium's own sandbox cannot start; the page is ours and only loopback is reachable. Shared memory
  // goes to /tmp: a container's /dev/shm can be too small for a renderer.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  const context = await browser.newContext({ viewport, colorScheme: "light", timezoneId: "Europe/Berlin" });
  const violations: string[] = [];
  await context.exposeFunction("__reportCsp", (violation: string) => {
    violations.push(violation);
  });
  await context.addInitScript(RECORDER);
  const page = await context.newPage();
  const events = recordEvents(page);
  return {
    h,
    browser,
    context,
    page,
    token,
    violations: () => [...violations],
    report: async () => `${await describePage(page, events)}\nwarden log:\n${wardenLog.join("\n")}`,
    async close() {
      await browser.close().catch(() => undefined);
      await h.close();
    },
  };
}

/** The page's errors, crashes, failed or refused requests and navigations, newest last (at most 200). */
function recordEvents(page: Page): string[] {
  const events: string[] = [];
  const note = (line: string) => {
    events.push(`${new Date().toISOString()} ${line}`);
    if (events.length > 200) events.shift();
  };
  page.on("pageerror", (error) => note(`page error: ${error.stack ?? error.message}`));
  page.on("crash", () => note("the page crashed"));
  page.on("close", () => note("the page closed"));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      note(`console.${message.type()}: ${message.text()}`);
  });
  page.on("requestfailed", (request) =>
    note(`request failed: ${request.method()} ${request.url()}: ${request.failure()?.errorText ?? "?"}`),
  );
  page.on("response", (response) => {
    if (response.status() >= 400)
      note(`${response.status()} for ${response.request().method()} ${response.url()}`);
  });
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) note(`navigated to ${frame.url()}`);
  });
  return events;
}

/** Bounded: a hung renderer must not hang the report too. */
function within<T>(ms: number, work: Promise<T>, what: string): Promise<T | string> {
  return Promise.race([
    work.catch((error: unknown) => `${what} failed: ${String(error)}`),
    new Promise<string>((resolve) => setTimeout(() => resolve(`${what}: no answer in ${ms} ms`), ms).unref()),
  ]);
}

async function describePage(page: Page, events: string[]): Promise<string> {
  const text = await within(
    5_000,
    page.evaluate(
      // biome-ignore lint/performance/useDomNodeTextContent: what is shown is the point, laid out, hidden parts left out
      () => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText,
    ),
    "reading the page's text",
  );
  const shot = join(SCREENSHOTS, `failure-${Date.now()}.png`);
  const saved = await within(
    5_000,
    page.screenshot({ path: shot }).then(() => `screenshot: ${shot}`),
    "screenshot",
  );
  return [
    `page at ${page.url()}`,
    saved,
    "page text:",
    String(text).slice(0, 2_000),
    `page events (${events.length}):`,
    ...events,
  ].join("\n");
}

/** Every failure report of a run, appended (CI prints it last, where its log is read). */
export const FAILURES = join(SCREENSHOTS, "failures.log");

/** Prints the session's report after each failed test of the file (registered inside its describe). */
export function reportFailures(session: () => UiSession | undefined): void {
  afterEach(async (context) => {
    const s = session();
    if (context.task.result?.state !== "fail" || !s) return;
    const report = `\n--- ${context.task.name}\n${await s.report()}\n---\n`;
    process.stderr.write(report);
    await appendFile(FAILURES, report);
  });
}

/** Signs in on the sign-in screen, landing on `view` (the chat unless named). */
export async function signIn(page: Page, url: string, token: string, view = ""): Promise<void> {
  await page.goto(`${url}/ui/${view ? `#/${view}` : ""}`);
  await page.getByLabel("User token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Screens" }).waitFor();
}

export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), animations: "disabled", caret: "hide" });
}
