import { describe, expect, it } from "vitest";
import { helloSchema } from "./protocol-control.js";
import { integrationResultSchema } from "./protocol-integration.js";
import { protocolMessageSchema } from "./protocol-message.js";

const header = { user_id: "ada", session_id: "s-1", msg_id: 7, timestamp: "2026-03-14T09:12:03Z" };
const request = (action: string, args: Record<string, unknown>, integration = "github") => ({
  type: "IntegrationRequest",
  ...header,
  integration,
  action,
  args,
});

/** The first problem of a message the schema refuses, as `path: rule`. */
function problem(message: unknown): string {
  const parsed = protocolMessageSchema.safeParse(message);
  if (parsed.success) return "accepted";
  const issue = parsed.error.issues[0];
  return `${issue?.path.join(".")}: ${issue?.message}`;
}

describe("IntegrationRequest", () => {
  it("carries each GitHub action with the arguments its schema takes", () => {
    expect(problem(request("list_issues", { repo: "octocat/hello-world", per_page: 100, page: 2 }))).toBe(
      "accepted",
    );
    expect(problem(request("search_issues", { query: "repo:octocat/hello-world is:open crash" }))).toBe(
      "accepted",
    );
    expect(problem(request("comment", { repo: "octocat/hello.js", number: 12, body: "Thanks!" }))).toBe(
      "accepted",
    );
    expect(problem(request("get_pull", { repo: "a/b", number: 1 }))).toBe("accepted");
  });

  it("names the argument and the rule it breaks", () => {
    expect(problem(request("list_issues", { repo: "octocat" }))).toBe(
      "args.repo: must be owner/name, like octocat/hello-world",
    );
    expect(problem(request("list_issues", { repo: "a/b", per_page: 101 }))).toBe(
      "args.per_page: must be at most 100",
    );
    expect(problem(request("get_issue", { repo: "a/b", number: 0 }))).toBe("args.number: must be at least 1");
    expect(problem(request("comment", { repo: "a/b", number: 3, body: "  " }))).toBe(
      "args.body: must not be empty",
    );
    expect(problem(request("create_issue", { repo: "a/b", title: "x".repeat(257) }))).toBe(
      "args.title: must be at most 256 characters",
    );
    expect(problem(request("list_issues", { repo: "a/..", state: "open" }))).toBe(
      "args.repo: must be owner/name, like octocat/hello-world",
    );
  });

  it("refuses an unknown action or integration, and arguments the action does not take (a URL, a token)", () => {
    expect(problem(request("delete_repo", { repo: "a/b" }))).toBe(
      "action: must be one of search_issues, list_issues, get_issue, create_issue, comment, list_pulls, get_pull",
    );
    expect(problem(request("list_issues", { repo: "a/b" }, "gitlab"))).toMatch(
      /^integration: must be one of/,
    );
    expect(problem(request("list_issues", { repo: "a/b", base_url: "http://127.0.0.1" }))).toMatch(
      /^args: Unrecognized key/,
    );
    expect(problem(request("list_issues", { repo: "a/b", token: "ghp_x" }))).toMatch(
      /^args: Unrecognized key/,
    );
  });
});

describe("IntegrationResult", () => {
  const result = (fields: Record<string, unknown>) => ({
    type: "IntegrationResult",
    ...header,
    reply_to: 7,
    ...fields,
  });

  it("carries data when ok and an error when not, never both", () => {
    expect(integrationResultSchema.safeParse(result({ ok: true, data: { items: [] } })).success).toBe(true);
    const limited = { code: "rate_limited", message: "wait", retry_after_s: 42 };
    expect(integrationResultSchema.safeParse(result({ ok: false, error: limited })).success).toBe(true);
    expect(problem(result({ ok: true }))).toBe("data: is required when ok is true");
    expect(problem(result({ ok: false }))).toBe("error: is required when ok is false");
    expect(problem(result({ ok: false, error: limited, data: {} }))).toBe(
      "data: must not be given when ok is false",
    );
    expect(problem(result({ ok: false, error: { code: "teapot", message: "x" } }))).toMatch(
      /^error.code: must be one of not_configured/,
    );
  });
});

describe("Hello", () => {
  it("may name the integrations the user has, only known ones", () => {
    const hello = { type: "Hello", ...header, providers: ["local"] };
    expect(helloSchema.safeParse({ ...hello, integrations: ["github"] }).success).toBe(true);
    expect(helloSchema.safeParse(hello).success).toBe(true);
    expect(problem({ ...hello, integrations: ["jira"] })).toMatch(/^integrations.0: must be one of github/);
  });
});
