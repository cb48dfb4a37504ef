import type { Octokit } from "@octokit/rest";
import {
  GITHUB_ITEM_BODY_CHARS,
  GITHUB_LIST_BODY_CHARS,
  type GithubAction,
  type GithubArgs,
  type GithubIssue,
  type GithubPull,
  type GithubResults,
  trimBody,
} from "../../contracts/index.js";

// Each GitHub action as one REST call, and GitHub's objects cut down to the compact shapes the tools show.

// The fields read from GitHub's issue and pull request objects (the full and the listed or searched forms).
interface IssueLike {
  number: number;
  title: string;
  state: string;
  html_url: string;
  user: { login: string } | null;
  labels: Array<string | { name?: string }>;
  comments: number;
  updated_at: string;
  pull_request?: unknown;
  body?: string | null;
}
interface PullLike {
  number: number;
  title: string;
  state: string;
  html_url: string;
  user: { login: string } | null;
  draft?: boolean;
  merged?: boolean;
  head: { label: string };
  base: { label: string };
  updated_at: string;
  body: string | null;
}

/** One action's answer: the compact data, and GitHub's HTTP status for the audit. */
export interface GithubCallResult<A extends GithubAction> {
  data: GithubResults[A];
  status: number;
}

type Actions = {
  [A in GithubAction]: (octokit: Octokit, args: GithubArgs[A]) => Promise<GithubCallResult<A>>;
};

const DEFAULT_PER_PAGE = 30;

export const githubActions: Actions = {
  async search_issues(octokit, args) {
    const paging = pagingOf(args);
    const response = await octokit.rest.search.issuesAndPullRequests({ q: args.query, ...paging });
    return {
      status: response.status,
      data: {
        items: response.data.items.map((i) => compactIssue(i, GITHUB_LIST_BODY_CHARS)),
        ...paging,
        more: hasNext(response.headers.link),
        total_count: response.data.total_count,
      },
    };
  },
  async list_issues(octokit, args) {
    const paging = pagingOf(args);
    const response = await octokit.rest.issues.listForRepo({
      ...repoOf(args.repo),
      state: args.state ?? "open",
      ...(args.labels?.length ? { labels: args.labels.join(",") } : {}),
      ...paging,
    });
    return {
      status: response.status,
      data: {
        items: response.data.map((i) => compactIssue(i, GITHUB_LIST_BODY_CHARS)),
        ...paging,
        more: hasNext(response.headers.link),
      },
    };
  },
  async get_issue(octokit, args) {
    const response = await octokit.rest.issues.get({ ...repoOf(args.repo), issue_number: args.number });
    return { status: response.status, data: { issue: compactIssue(response.data, GITHUB_ITEM_BODY_CHARS) } };
  },
  async create_issue(octokit, args) {
    const response = await octokit.rest.issues.create({
      ...repoOf(args.repo),
      title: args.title,
      ...(args.body === undefined ? {} : { body: args.body }),
      ...(args.labels?.length ? { labels: args.labels } : {}),
    });
    return { status: response.status, data: { issue: compactIssue(response.data, GITHUB_ITEM_BODY_CHARS) } };
  },
  async comment(octokit, args) {
    const response = await octokit.rest.issues.createComment({
      ...repoOf(args.repo),
      issue_number: args.number,
      body: args.body,
    });
    const c = response.data;
    return {
      status: response.status,
      data: {
        comment: { id: c.id, url: c.html_url, author: c.user?.login ?? null, issue_number: args.number },
      },
    };
  },
  async list_pulls(octokit, args) {
    const paging = pagingOf(args);
    const response = await octokit.rest.pulls.list({
      ...repoOf(args.repo),
      state: args.state ?? "open",
      ...paging,
    });
    return {
      status: response.status,
      data: {
        items: response.data.map((p) => compactPull(p, GITHUB_LIST_BODY_CHARS)),
        ...paging,
        more: hasNext(response.headers.link),
      },
    };
  },
  async get_pull(octokit, args) {
    const response = await octokit.rest.pulls.get({ ...repoOf(args.repo), pull_number: args.number });
    return { status: response.status, data: { pull: compactPull(response.data, GITHUB_ITEM_BODY_CHARS) } };
  },
};

function repoOf(repo: string): { owner: string; repo: string } {
  const [owner = "", name = ""] = repo.split("/");
  return { owner, repo: name };
}

function pagingOf(args: { page?: number | undefined; per_page?: number | undefined }) {
  return { page: args.page ?? 1, per_page: args.per_page ?? DEFAULT_PER_PAGE };
}

/** GitHub says a next page exists by a `rel="next"` entry in its Link header. */
function hasNext(link: string | undefined): boolean {
  return link !== undefined && /<[^>]*>;\s*rel="next"/.test(link);
}

function compactIssue(issue: IssueLike, bodyChars: number): GithubIssue {
  return {
    number: issue.number,
    title: issue.title,
    state: issue.state,
    url: issue.html_url,
    author: issue.user?.login ?? null,
    labels: issue.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter((l) => l !== ""),
    comments: issue.comments,
    updated_at: issue.updated_at,
    is_pull_request: issue.pull_request !== undefined && issue.pull_request !== null,
    ...trimBody(issue.body, bodyChars),
  };
}

function compactPull(pull: PullLike, bodyChars: number): GithubPull {
  return {
    number: pull.number,
    title: pull.title,
    state: pull.state,
    url: pull.html_url,
    author: pull.user?.login ?? null,
    draft: pull.draft ?? false,
    ...("merged" in pull ? { merged: pull.merged } : {}),
    head: pull.head.label,
    base: pull.base.label,
    updated_at: pull.updated_at,
    ...trimBody(pull.body, bodyChars),
  };
}
