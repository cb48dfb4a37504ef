import {
  GITHUB_ACTIONS,
  type GithubAction,
  type GithubIssue,
  type GithubPull,
  type GithubResults,
  githubArgsSchemas,
  githubResultSchemas,
  type IntegrationError,
} from "../../contracts/index.js";
import type { IntegrationAccess } from "./integration-client.js";
import { type AgentTool, defineTool, failed, ok, type ToolResult } from "./tool-definition.js";

// GitHub as typed tools: each action's arguments are the contract's schema, the call goes to the warden (which
// holds the user's token; the model and the cell never see it), and the compact answer is written out for the
// model to read. Writes say what they did; a rate limit says when to try again instead of being retried here.

const DESCRIPTIONS: Record<GithubAction, string> = {
  search_issues:
    "Search GitHub issues and pull requests with GitHub's search syntax (repo:owner/name, is:open, label:bug, " +
    "author:login, words). Returns numbers, titles, states, urls and the start of each body, one page at a time.",
  list_issues:
    "List a GitHub repository's issues (pull requests are included and marked), newest first, one page at a time.",
  get_issue: "Read one GitHub issue by number: its title, state, labels, author and body.",
  create_issue: "Open a new issue in a GitHub repository, as the user. Only when the user asked for it.",
  comment: "Post a comment on a GitHub issue or pull request, as the user. Only when the user asked for it.",
  list_pulls: "List a GitHub repository's pull requests, one page at a time.",
  get_pull: "Read one GitHub pull request by number: title, state, branches, whether merged, and body.",
};

/** The GitHub tools, granted together by the allow-list entry `github`. */
export function createGithubTools(access: IntegrationAccess): AgentTool[] {
  return GITHUB_ACTIONS.map((action) => githubTool(access, action));
}

function githubTool<A extends GithubAction>(access: IntegrationAccess, action: A): AgentTool {
  return defineTool({
    name: `github_${action}`,
    kind: "github",
    description: DESCRIPTIONS[action],
    parameters: githubArgsSchemas[action],
    async execute(args, { signal }) {
      const answer = await access.call(
        { integration: "github", action, args: args as Record<string, unknown> },
        { signal },
      );
      if (!answer.ok) return failure(action, answer.error);
      const data = githubResultSchemas[action].safeParse(answer.data);
      if (!data.success) return failed(`github ${action} failed: the warden's answer was not understood`);
      return describe(action, args as Record<string, unknown>, data.data as GithubResults[A]);
    },
  }) as AgentTool;
}

function failure(action: GithubAction, error: IntegrationError): ToolResult {
  if (error.code === "rate_limited" && error.retry_after_s !== undefined) {
    const at = new Date(Date.now() + error.retry_after_s * 1000).toISOString().slice(11, 19);
    return failed(
      `github ${action} failed: GitHub's rate limit is reached; retry in ${error.retry_after_s} s (after ${at} UTC), ` +
        "not before. " +
        error.message,
      { code: error.code, retry_after_s: error.retry_after_s },
    );
  }
  return failed(`github ${action} failed (${error.code}): ${error.message}`, { code: error.code });
}

function describe<A extends GithubAction>(
  action: A,
  args: Record<string, unknown>,
  data: GithubResults[A],
): ToolResult {
  const repo = typeof args.repo === "string" ? args.repo : undefined;
  switch (action) {
    case "search_issues":
    case "list_issues":
    case "list_pulls": {
      const page = data as GithubResults["list_issues"] | GithubResults["list_pulls"];
      const what =
        action === "list_pulls" ? "Pull requests" : action === "search_issues" ? "Results" : "Issues";
      const lines = [
        `${what}${repo ? ` in ${repo}` : ""}, page ${page.page} (${page.per_page} per page)` +
          `${page.total_count === undefined ? "" : `, ${page.total_count} matching in all`}: ${page.items.length} shown.`,
      ];
      for (const item of page.items) lines.push(...("head" in item ? pullLines(item) : issueLines(item)));
      lines.push(
        page.more
          ? `More available: call again with page ${page.page + 1}.`
          : "No more results after this page.",
      );
      return ok(lines.join("\n"), { count: page.items.length, page: page.page, more: page.more });
    }
    case "get_issue":
      return ok(issueLines((data as GithubResults["get_issue"]).issue, true).join("\n"));
    case "get_pull":
      return ok(pullLines((data as GithubResults["get_pull"]).pull, true).join("\n"));
    case "create_issue": {
      const { issue } = data as GithubResults["create_issue"];
      return ok(`Created issue #${issue.number} in ${repo}: ${issue.title}\n${issue.url}`, {
        number: issue.number,
        url: issue.url,
      });
    }
    case "comment": {
      const { comment } = data as GithubResults["comment"];
      return ok(`Commented on ${repo}#${comment.issue_number}: ${comment.url}`, {
        id: comment.id,
        url: comment.url,
      });
    }
    default:
      return failed(`github ${action} has no description`);
  }
}

function issueLines(issue: GithubIssue, whole = false): string[] {
  const kind = issue.is_pull_request ? "pull request" : "issue";
  const labels = issue.labels.length > 0 ? `, labels: ${issue.labels.join(", ")}` : "";
  const head =
    `#${issue.number} [${issue.state}] ${issue.title} — ${issue.url} ` +
    `(${kind} by ${issue.author ?? "unknown"}, ${issue.comments} comments${labels}, updated ${issue.updated_at})`;
  return [head, ...bodyLines(issue.body, issue.body_truncated, whole)];
}

function pullLines(pull: GithubPull, whole = false): string[] {
  const merged = pull.merged === undefined ? "" : pull.merged ? ", merged" : ", not merged";
  const head =
    `#${pull.number} [${pull.state}${pull.draft ? ", draft" : ""}${merged}] ${pull.title} — ${pull.url} ` +
    `(by ${pull.author ?? "unknown"}, ${pull.head} → ${pull.base}, updated ${pull.updated_at})`;
  return [head, ...bodyLines(pull.body, pull.body_truncated, whole)];
}

function bodyLines(body: string, truncated: boolean, whole: boolean): string[] {
  if (body.trim() === "") return [];
  const text = whole ? body : body.replace(/\s+/g, " ");
  return [`  ${text}${truncated ? " [body cut]" : ""}`];
}
