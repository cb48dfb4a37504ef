import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type IntegrationRequest, integrationRequestSchema } from "../../src/contracts/index.js";
import { createLogger } from "../../src/core/index.js";
import { createGuardedFetch } from "../../src/egress/index.js";
import type { AuditEntry } from "../../src/warden/audit-store.js";
import { createGithubRunner, createIntegrationDesk } from "../../src/warden/integrations/index.js";
import { GITHUB_HOST, type GithubFake, startGithubFake } from "../support/github-fake.js";
import { githubSpec } from "../support/github-spec.js";

// The GitHub runner and the desk against a GitHub REST fake served as api.github.com over HTTPS under a test
// CA, reached through the egress hook that maps the name to 127.0.0.1: the real client, the real TLS checks.

let fake: GithubFake;
beforeAll(async () => {
  fake = await startGithubFake();
});
afterAll(async () => {
  await fake?.close();
});
// Every answer the fake gave was one GitHub documents for that request.
afterEach(() => expect(fake.violations.splice(0)).toEqual([]));

function desk(options: { token?: string | undefined; allowPrivate?: boolean; baseUrl?: string } = {}) {
  const audit: AuditEntry[] = [];
  const token = "token" in options ? options.token : fake.token;
  const runner = createGithubRunner({
    baseUrl: options.baseUrl ?? `https://${GITHUB_HOST}`,
    token: (userId) => (userId === "ada" ? token : undefined),
    fetch: createGuardedFetch({
      dial: { hosts: { [GITHUB_HOST]: "127.0.0.1" }, extraCa: [fake.caPem], ports: { 443: fake.port } },
      allowPrivate: options.allowPrivate ?? true,
      timeoutMs: 10_000,
      maxBytes: 1024 * 1024,
    }),
  });
  const d = createIntegrationDesk({
    runners: [runner],
    audit: (e) => audit.push(e),
    logger: createLogger("test", { level: "silent" }),
  });
  const ask = (action: string, args: Record<string, unknown>, userId = "ada") =>
    d.serve("ada", request(action, args, userId), new AbortController().signal);
  return { desk: d, audit, ask };
}

function request(action: string, args: Record<string, unknown>, userId = "ada"): IntegrationRequest {
  return integrationRequestSchema.parse({
    type: "IntegrationRequest",
    user_id: userId,
    session_id: "s-1",
    msg_id: 1,
    timestamp: "2026-03-14T09:12:03Z",
    integration: "github",
    action,
    args,
  });
}

describe("the GitHub fake's check against GitHub's OpenAPI description", () => {
  it("refuses an answer GitHub would not give, names what is wrong, and takes GitHub's own error shape", () => {
    const spec = githubSpec();
    expect(spec.check("GET", "/repos/octo/demo/issues/1", 200, { id: 1, title: "x" })).toMatch(
      /^GET \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\} 200: \(body\) must have required property '\w+'/,
    );
    expect(
      spec.check("GET", "/search/issues", 200, { total_count: "3", incomplete_results: false, items: [] }),
    ).toMatch(/\/total_count must be integer/);
    expect(spec.check("GET", "/repos/octo/demo/issues/1", 404, { message: "Not Found" })).toBeUndefined();
    expect(spec.check("GET", "/no/such/thing/here/at/all", 200, {})).toMatch(
      /not a path of api\.github\.com/,
    );
  });
});

describe("the GitHub runner", () => {
  it("pages a repository's issues as GitHub's Link header says, with trimmed bodies and the user's token", async () => {
    const { ask, audit } = desk();
    const first = await ask("list_issues", { repo: "octo/demo", per_page: 2 });
    expect(first.ok).toBe(true);
    expect(first.data).toMatchObject({ page: 1, per_page: 2, more: true });
    const items = first.data?.items as Array<Record<string, unknown>>;
    expect(items.map((i) => [i.number, i.title, i.state])).toEqual([
      [1, "Crash number 1", "open"],
      [2, "Crash number 2", "open"],
    ]);
    expect(items[0]).toMatchObject({
      url: "https://github.com/octo/demo/issues/1",
      labels: ["bug"],
      body_truncated: true,
    });
    expect(String(items[0]?.body).length).toBeLessThanOrEqual(281);
    const second = await ask("list_issues", { repo: "octo/demo", per_page: 2, page: 2 });
    expect(second.data).toMatchObject({ page: 2, more: false });
    expect(second.data?.items).toHaveLength(1);
    expect(fake.calls.at(-1)).toMatchObject({
      method: "GET",
      path: "/repos/octo/demo/issues?state=open&page=2&per_page=2",
      authorization: `token ${fake.token}`,
    });
    expect(audit.at(-1)).toEqual({
      userId: "ada",
      actor: "cell:ada",
      action: "integration.github",
      detail: { action: "list_issues", repo: "octo/demo", status: 200, outcome: "ok" },
    });
    expect(JSON.stringify(audit)).not.toContain(fake.token);
  });

  it("reads, searches, opens issues, comments and reads pull requests", async () => {
    const { ask } = desk();
    expect((await ask("get_issue", { repo: "octo/demo", number: 2 })).data).toMatchObject({
      issue: { number: 2, title: "Crash number 2", author: "reporter", is_pull_request: false },
    });
    const found = await ask("search_issues", { query: "repo:octo/demo crash 3" });
    expect(found.data).toMatchObject({ total_count: 1, more: false, items: [{ number: 3 }] });
    const created = await ask("create_issue", { repo: "octo/demo", title: "A new one", body: "it broke" });
    expect(created.data).toMatchObject({ issue: { title: "A new one", state: "open", body: "it broke" } });
    const commented = await ask("comment", { repo: "octo/demo", number: 1, body: "Looking into it." });
    expect(commented.data).toMatchObject({ comment: { issue_number: 1, author: "ironclaw-user" } });
    expect(fake.comments.get("octo/demo#1")).toContain("Looking into it.");
    expect((await ask("list_pulls", { repo: "octo/demo" })).data).toMatchObject({
      items: [{ number: 10, head: "octo:feature-10", base: "octo:main" }, { number: 11 }],
      more: false,
    });
    expect((await ask("get_pull", { repo: "octo/demo", number: 11 })).data).toMatchObject({
      pull: { number: 11, title: "Fix the crash", merged: false, draft: false },
    });
  });

  it("says when GitHub takes calls again after a rate limit, and asks it once, not in a loop", async () => {
    const { ask } = desk();
    const before = fake.calls.length;
    const limited = await ask("list_issues", { repo: "limited/repo" });
    expect(limited.ok).toBe(false);
    expect(limited.error?.code).toBe("rate_limited");
    expect(limited.error?.retry_after_s).toBeGreaterThanOrEqual(85);
    expect(limited.error?.retry_after_s).toBeLessThanOrEqual(90);
    const throttled = await ask("get_issue", { repo: "throttled/repo", number: 1 });
    expect(throttled.error).toMatchObject({ code: "rate_limited", retry_after_s: 30 });
    expect(fake.calls.length - before).toBe(2);
  });

  it("answers a missing token without calling GitHub, and a refused token without repeating it", async () => {
    const before = fake.calls.length;
    const none = await desk({ token: undefined }).ask("list_issues", { repo: "octo/demo" });
    expect(none.error).toMatchObject({ code: "not_configured" });
    expect(none.error?.message).toContain("GITHUB_TOKEN");
    expect(fake.calls.length).toBe(before);
    const wrong = "ghp_revokedTokenValue999";
    const refused = await desk({ token: wrong }).ask("list_issues", { repo: "octo/demo" });
    expect(refused.error?.code).toBe("forbidden");
    expect(refused.error?.message).toContain("did not accept the GITHUB_TOKEN");
    expect(JSON.stringify(refused)).not.toContain(wrong);
    const missing = await desk().ask("get_issue", { repo: "octo/nothing", number: 1 });
    expect(missing.error?.code).toBe("not_found");
  });

  it("refuses to dial a private address unless the host allows it, and never calls a plain-HTTP API", async () => {
    const before = fake.calls.length;
    const privateRefused = await desk({ allowPrivate: false }).ask("list_issues", { repo: "octo/demo" });
    expect(privateRefused.error?.code).toBe("refused");
    expect(privateRefused.error?.message).toContain(`${GITHUB_HOST} resolves to 127.0.0.1`);
    const plain = await desk({ baseUrl: `http://${GITHUB_HOST}` }).ask("list_issues", { repo: "octo/demo" });
    expect(plain.error?.code).toBe("refused");
    expect(fake.calls.length).toBe(before);
  });

  it("refuses a request that names another user, and lists only integrations the user has", async () => {
    const { desk: d, ask, audit } = desk();
    const other = await ask("list_issues", { repo: "octo/demo" }, "bob");
    expect(other.error).toMatchObject({ code: "forbidden", message: "this cell belongs to ada, not to bob" });
    expect(audit.at(-1)?.detail).toMatchObject({ claimed_user: "bob", outcome: "forbidden" });
    expect(d.configured("ada")).toEqual(["github"]);
    expect(d.configured("bob")).toEqual([]);
  });
});
