// UI benchmark: `npm run bench:ui [rounds]` (default 10). The built bundle's size (gzip), first load to
// interactive in Chromium (cold and warm cache) against the document's own DOMContentLoaded, and the time to
// the first streamed token of a chat turn in the page (WebSocket) against the same turn over the bare API
// (POST /api/chat with SSE), in the same run, on a real warden with a bwrap cell and the scripted model.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { PACKAGE_ROOT } from "../../src/cells/index.js";
import { reply } from "../../test/support/model-server.js";
import { startWardenHarness } from "../../test/support/warden-harness.js";
import { formatTable } from "../agent/timing.js";
import { percentile } from "../percentile.js";
import { measureBundle } from "./bundle-size.js";

const ROUNDS = Number(process.argv[2] ?? 10);
const CHROMIUM = process.env.IRONCLAW_CHROMIUM ?? "/usr/bin/chromium";
const ANSWER = "The launch is on the fourteenth of March, and the venue is the old harbour hall.";
const kb = (n: number) => (n / 1024).toFixed(1);
const ms = (n: number) => n.toFixed(1);
const stats = (xs: number[]) => ({ p50: percentile(xs, 50), p90: percentile(xs, 90), n: xs.length });

const bundle = measureBundle(join(PACKAGE_ROOT, "ui", "dist"));
const h = await startWardenHarness();
h.model.respondWith(() => reply.text(ANSWER, { chunks: 12 }));
const token = await h.addUser("bench");
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });

// Signed in once by cookie, as after the login form; each cold context starts with that cookie and no cache
// (logins are rate-limited, and signing in is not what is measured).
const first = await browser.newContext();
const login = await first.request.post(`${h.url}/api/auth/login`, {
  data: { token },
  headers: { origin: h.url },
});
if (!login.ok()) throw new Error(`login failed: ${login.status()}`);
const signedIn = await first.storageState();
await first.close();
const signedInContext = () => browser.newContext({ storageState: signedIn });

// Functions, not strings: the page's CSP forbids evaluating strings, and the bench must run under it.
const markAt = (name: string) => performance.getEntriesByName(name)[0]?.startTime ?? -1;
const readyAt = (page: import("playwright-core").Page) =>
  page
    .waitForFunction(() => performance.getEntriesByName("ironclaw:chat-ready").length > 0)
    .then(() => page.evaluate(markAt, "ironclaw:chat-ready"));

// First load: navigation start → the chat can send (its WebSocket is open), against DOMContentLoaded.
const load = { cold: [] as number[], warm: [] as number[], dom: [] as number[] };
const warmContext = await signedInContext();
const warmPage = await warmContext.newPage();
for (let i = 0; i < ROUNDS; i++) {
  const context = await signedInContext();
  const page = await context.newPage();
  await page.goto(`${h.url}/ui/`);
  load.cold.push(await readyAt(page));
  load.dom.push(
    await page.evaluate(
      () =>
        (
          performance as unknown as {
            getEntriesByType(type: string): Array<{ domContentLoadedEventEnd: number }>;
          }
        ).getEntriesByType("navigation")[0]?.domContentLoadedEventEnd ?? Number.NaN,
    ),
  );
  await context.close();
  await warmPage.goto(`${h.url}/ui/`);
  load.warm.push(await readyAt(warmPage));
}

// First token: the same scripted turn, in the page and over the bare API.
const ttft = { page: [] as number[], api: [] as number[] };
await warmPage.locator('.connection[data-state="online"]').waitFor();
for (let i = 0; i < ROUNDS; i++) {
  await warmPage.evaluate(() => {
    performance.clearMarks("ironclaw:send");
    performance.clearMarks("ironclaw:first-token");
  });
  await warmPage.getByLabel("Message", { exact: true }).fill(`When is the launch? (${i})`);
  await warmPage.keyboard.press("Enter");
  await warmPage.getByRole("button", { name: "Send" }).waitFor();
  ttft.page.push(
    // No function declared inside: tsx would name it with a helper the page does not have.
    await warmPage.evaluate(
      () =>
        (performance.getEntriesByName("ironclaw:first-token")[0]?.startTime ?? Number.NaN) -
        (performance.getEntriesByName("ironclaw:send")[0]?.startTime ?? Number.NaN),
    ),
  );

  const started = performance.now();
  const response = await fetch(`${h.url}/api/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ text: `When is the launch? (${i})`, stream: true }),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let first: number | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (first === undefined && text.includes('"type":"delta"')) first = performance.now() - started;
  }
  ttft.api.push(first ?? Number.NaN);
}

const results = {
  node: process.version,
  rounds: ROUNDS,
  bundle,
  firstLoad: { cold: stats(load.cold), warm: stats(load.warm), domContentLoaded: stats(load.dom) },
  firstToken: { page: stats(ttft.page), api: stats(ttft.api) },
};
console.log(
  `\nBuilt UI (ui/dist): ${kb(bundle.total.bytes)} kB, ${kb(bundle.total.gzip)} kB gzip in total (budget 150 kB); first load ${kb(bundle.initial.gzip)} kB gzip\n`,
);
const row = (label: string, s: { p50: number; p90: number }, base: { p50: number }) => [
  label,
  ms(s.p50),
  ms(s.p90),
  `${(s.p50 / base.p50).toFixed(2)}×`,
];
console.log(
  `${formatTable(
    ["measure (ms)", "p50", "p90", "ratio"],
    [
      row(
        "DOMContentLoaded (baseline)",
        results.firstLoad.domContentLoaded,
        results.firstLoad.domContentLoaded,
      ),
      row("load → chat ready, cold cache", results.firstLoad.cold, results.firstLoad.domContentLoaded),
      row("load → chat ready, warm cache", results.firstLoad.warm, results.firstLoad.domContentLoaded),
      row("first token, bare API (baseline)", results.firstToken.api, results.firstToken.api),
      row("first token in the page", results.firstToken.page, results.firstToken.api),
    ],
  )}\n`,
);
await mkdir(join(import.meta.dirname, "../results"), { recursive: true });
const out = join(
  import.meta.dirname,
  "../results",
  `ui-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}.json`,
);
await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote ${out}`);
await browser.close();
await h.close();
