import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../../support/model-server.js";
import { api } from "../../support/warden-harness.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// The Evolution screen against a real warden and real cells: alice's three conversations, each answer rated down
// over the API, give a proposal; an admin opens its evidence chain, approves, promotes and rolls it back from the
// page, and alice's instruction file changes and comes back.

const SKILL_FILE = "instructions/skill-file.md";

let s: UiSession;
let bossToken: string;
let alice: ReturnType<typeof api>;

const data = async <T>(response: Response): Promise<T> => ((await response.json()) as { data: T }).data;

async function ratedDown(n: number): Promise<void> {
  s.h.model.enqueue(
    reply.toolCalls([
      { name: "file", arguments: { action: "write", path: `notes/n${n}.md`, content: `# ${n}\n` } },
    ]),
    reply.text(`Saved note ${n}.`),
  );
  const { session_id } = await data<{ session_id: string }>(
    await alice("POST", "/api/chat", { text: `save note ${n}` }),
  );
  const { entries } = await data<{ entries: Array<{ seq: number; role: string }> }>(
    await alice("GET", `/api/sessions/${session_id}`),
  );
  const seq = entries.find((e) => e.role === "assistant")?.seq;
  const rated = await alice("POST", "/api/feedback", { session_id, message_seq: seq, rating: "down" });
  expect(rated.status).toBe(200);
}

const skillFile = async () => {
  const response = await alice("GET", `/api/brain/file?path=${encodeURIComponent(SKILL_FILE)}`);
  return response.status === 200 ? (await data<{ content: string }>(response)).content : null;
};

beforeAll(async () => {
  s = await startUiSession();
  alice = api(s.h.url, s.token);
  bossToken = (await s.h.warden.context.users.add("boss", { admin: true })).token;
  for (const n of [1, 2, 3]) await ratedDown(n);
}, 180_000);
afterAll(async () => {
  await s?.close();
});

describe("Evolution", () => {
  reportFailures(() => s);

  it("shows a proposal's evidence chain, and approves, promotes and rolls it back from the page", async () => {
    const { page } = s;
    await signIn(page, s.h.url, bossToken, "evolution");
    await page.getByRole("heading", { name: "Evolution", level: 1 }).waitFor();
    const row = page.locator("tr", { hasText: "Skill: file" });
    await expect.poll(() => row.locator(".status-pill").first().textContent()).toBe("ready for promotion");

    await row.getByRole("button", { name: "Skill: file" }).click();
    await page.getByRole("heading", { name: /3 of 3 sessions that used the skill file/ }).waitFor();
    await expect.poll(() => page.locator(".evidence").count()).toBe(3);
    const first = page.locator(".evidence").first();
    const raw = await first.locator("figure", { hasText: "Raw envelope" }).locator("pre").textContent();
    const projected = await first
      .locator("figure", { hasText: "Projected record" })
      .locator("pre")
      .textContent();
    const eventId = (JSON.parse(raw ?? "{}") as { event: { event_id: string } }).event.event_id;
    expect((JSON.parse(projected ?? "{}") as { source_event_id: string }).source_event_id).toBe(eventId);
    await shoot(page, "evolution-evidence");

    await row.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => row.locator(".status-pill").nth(1).textContent()).toBe("approved");
    await row.getByRole("button", { name: "Promote" }).click();
    await expect
      .poll(() => page.locator(".notice.info").textContent())
      .toBe("Changed instructions/skill-file.md of alice.");
    await expect.poll(() => row.locator(".status-pill").nth(1).textContent()).toBe("promoted");
    expect(await skillFile()).toContain("Sessions that used file were judged failed");
    const written = page.locator(".promotion-change figure", { hasText: "After" }).locator("pre");
    expect(await written.textContent()).toBe(await skillFile());

    await row.getByRole("button", { name: "Roll back" }).click();
    await expect.poll(() => row.locator(".status-pill").nth(1).textContent()).toBe("rolled back");
    expect(await skillFile()).toBeNull();
    expect(s.violations()).toEqual([]);
  });
});
