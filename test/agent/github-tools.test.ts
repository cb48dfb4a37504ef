import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createGithubTools,
  createToolBox,
  type IntegrationAccess,
  MemoryAuditLog,
  PathPolicy,
} from "../../src/agent/index.js";
import { integrationRequestSchema } from "../../src/contracts/index.js";
import { createLogger } from "../../src/core/index.js";
import { createGuardedFetch } from "../../src/egress/index.js";
import { createGithubRunner, createIntegrationDesk } from "../../src/warden/integrations/index.js";
import { GITHUB_HOST, type GithubFake, startGithubFake } from "../support/github-fake.js";

// The GitHub tools as the model sees them: what they offer, how they refuse bad arguments, and what they say,
// run through a tool box against the warden's desk and the GitHub fake (the channel between them is the end to
// end test's).

let fake: GithubFake;
let access: IntegrationAccess;
beforeAll(async () => {
  fake = await startGithubFake();
  const desk = createIntegrationDesk({
    runners: [
      createGithubRunner({
        baseUrl: `https://${GITHUB_HOST}`,
        token: () => fake.token,
        fetch: createGuardedFetch({
          dial: { hosts: { [GITHUB_HOST]: "127.0.0.1" }, ports: { 443: fake.port }, extraCa: [fake.caPem] },
          allowPrivate: true,
          timeoutMs: 10_000,
          maxBytes: 1024 * 1024,
        }),
      }),
    ],
    audit: () => {},
    logger: createLogger("test", { level: "silent" }),
  });
  access = {
    configured: () => ["github"],
    call: async (call, { signal }) => {
      const request = integrationRequestSchema.parse({
        type: "IntegrationRequest",
        user_id: "ada",
        session_id: "s-1",
        msg_id: 1,
        timestamp: "2026-03-14T09:12:03Z",
        ...call,
      });
      const reply = await desk.serve("ada", request, signal);
      return reply.ok
        ? { ok: true, data: reply.data ?? {} }
        : { ok: false, error: reply.error ?? { code: "failed", message: "?" } };
    },
  };
});
afterAll(async () => {
  await fake?.close();
});
// Every answer the fake gave was one GitHub documents for that request.
afterEach(() => expect(fake.violations.splice(0)).toEqual([]));

function box(allow: string[] = ["github"]) {
  return createToolBox({
    tools: createGithubTools(access),
    allow,
    agent: "assistant",
    pathPolicy: new PathPolicy(["/nonexistent"]),
    audit: new MemoryAuditLog(),
  });
}

const run = (name: string, args: unknown) =>
  box().run(
    { id: "c1", name, arguments: JSON.stringify(args) },
    { signal: new AbortController().signal, sessionId: "s-1" },
  );

describe("the GitHub tools", () => {
  it("are granted together by the allow-list entry github, and not otherwise", () => {
    expect(
      box()
        .specs()
        .map((s) => s.name),
    ).toEqual([
      "github_search_issues",
      "github_list_issues",
      "github_get_issue",
      "github_create_issue",
      "github_comment",
      "github_list_pulls",
      "github_get_pull",
    ]);
    expect(box(["bash", "file"]).specs()).toEqual([]);
    const listSpec = box().specs()[1];
    const properties = (listSpec?.parameters.properties ?? {}) as Record<string, { maximum?: number }>;
    expect(properties.per_page?.maximum).toBe(100);
  });

  it("name the argument and rule the model broke, before anything reaches GitHub", async () => {
    const before = fake.calls.length;
    const result = await run("github_list_issues", { repo: "octo/demo", per_page: 500 });
    expect(result.isError).toBe(true);
    expect(result.content).toBe("invalid arguments for github_list_issues:\n$.per_page: must be at most 100");
    expect(fake.calls.length).toBe(before);
  });

  it("say what a write did, and when to retry after a rate limit", async () => {
    const created = await run("github_create_issue", {
      repo: "octo/demo",
      title: "Login fails",
      body: "Since 2.1",
    });
    expect(created.isError).toBe(false);
    expect(created.content).toMatch(
      /^Created issue #\d+ in octo\/demo: Login fails\nhttps:\/\/github\.com\/octo\/demo\/issues\/\d+$/,
    );
    const limited = await run("github_get_issue", { repo: "throttled/repo", number: 1 });
    expect(limited.isError).toBe(true);
    expect(limited.content).toMatch(
      /^github get_issue failed: GitHub's rate limit is reached; retry in 30 s \(after \d\d:\d\d:\d\d UTC\), not before\./,
    );
  });

  it("show a page of pull requests compactly, and say when there are no more", async () => {
    const pulls = await run("github_list_pulls", { repo: "octo/demo" });
    expect(pulls.content).toContain(
      "#10 [open] Faster start — https://github.com/octo/demo/pull/10 (by octo, octo:feature-10 → octo:main",
    );
    expect(pulls.content).toContain("No more results after this page.");
    const one = await run("github_get_pull", { repo: "octo/demo", number: 11 });
    expect(one.content).toContain("#11 [open, not merged] Fix the crash");
  });
});
