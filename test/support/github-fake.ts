import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { components } from "@octokit/openapi-types";
import { createCellCa } from "../../src/egress/index.js";
import { githubSpec } from "./github-spec.js";

// A GitHub REST fake served over HTTPS under the real name api.github.com, with a certificate from a test CA:
// clients reach it through the egress hook that maps the name to 127.0.0.1 and trusts the CA. Its responses
// are typed with GitHub's own OpenAPI schemas, so tsc checks their shape. Owner `limited` answers 403 with
// x-ratelimit-remaining 0 and a reset 90 s away; owner `throttled` answers 429 with Retry-After 30.

type Schemas = components["schemas"];
type Issue = Schemas["issue"];
type SearchItem = Schemas["issue-search-result-item"];
type Comment = Schemas["issue-comment"];
type Pull = Schemas["pull-request-simple"];
type FullPull = Schemas["pull-request"];
type User = Schemas["simple-user"];
type Repository = Schemas["repository"];

export const GITHUB_HOST = "api.github.com";
const API = `https://${GITHUB_HOST}`;
const WHEN = "2026-03-14T09:12:03Z";

export interface GithubCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface GithubFake {
  /** The port on 127.0.0.1 that api.github.com is mapped to. */
  port: number;
  /** The test CA's certificate, which a client must trust besides the system roots. */
  caPem: string;
  /** The only token the fake accepts; others get 401 Bad credentials. */
  token: string;
  calls: GithubCall[];
  /** Answers that differ from what GitHub's OpenAPI description says it answers: a test expects none. */
  violations: string[];
  /** Comments posted, by "owner/repo#number". */
  comments: Map<string, string[]>;
  close(): Promise<void>;
}

function user(login: string): User {
  return {
    login,
    id: 1,
    node_id: `U_${login}`,
    avatar_url: `https://avatars.githubusercontent.com/${login}`,
    gravatar_id: null,
    url: `${API}/users/${login}`,
    html_url: `https://github.com/${login}`,
    followers_url: `${API}/users/${login}/followers`,
    following_url: `${API}/users/${login}/following`,
    gists_url: `${API}/users/${login}/gists`,
    starred_url: `${API}/users/${login}/starred`,
    subscriptions_url: `${API}/users/${login}/subscriptions`,
    organizations_url: `${API}/users/${login}/orgs`,
    repos_url: `${API}/users/${login}/repos`,
    events_url: `${API}/users/${login}/events`,
    received_events_url: `${API}/users/${login}/received_events`,
    type: "User",
    site_admin: false,
  };
}

const REPO_URL_KEYS = [
  "archive_url",
  "assignees_url",
  "blobs_url",
  "branches_url",
  "collaborators_url",
  "comments_url",
  "commits_url",
  "compare_url",
  "contents_url",
  "contributors_url",
  "deployments_url",
  "downloads_url",
  "events_url",
  "forks_url",
  "git_commits_url",
  "git_refs_url",
  "git_tags_url",
  "git_url",
  "issue_comment_url",
  "issue_events_url",
  "issues_url",
  "keys_url",
  "labels_url",
  "languages_url",
  "merges_url",
  "milestones_url",
  "notifications_url",
  "pulls_url",
  "releases_url",
  "ssh_url",
  "stargazers_url",
  "statuses_url",
  "subscribers_url",
  "subscription_url",
  "tags_url",
  "teams_url",
  "trees_url",
  "clone_url",
  "hooks_url",
  "svn_url",
] as const;

function repository(fullName: string): Repository {
  const [owner = "", name = ""] = fullName.split("/");
  const urls = Object.fromEntries(REPO_URL_KEYS.map((k) => [k, `${API}/repos/${fullName}/${k}`])) as Record<
    (typeof REPO_URL_KEYS)[number],
    string
  >;
  return {
    ...urls,
    id: 7,
    node_id: `R_${name}`,
    name,
    full_name: fullName,
    license: null,
    forks: 0,
    owner: user(owner),
    private: false,
    html_url: `https://github.com/${fullName}`,
    description: null,
    fork: false,
    url: `${API}/repos/${fullName}`,
    mirror_url: null,
    homepage: null,
    language: "TypeScript",
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: 1,
    default_branch: "main",
    open_issues_count: 0,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: false,
    archived: false,
    disabled: false,
    pushed_at: WHEN,
    created_at: WHEN,
    updated_at: WHEN,
    open_issues: 0,
    watchers: 0,
  };
}

function issue(fullName: string, number: number, title: string, body: string, state = "open"): Issue {
  const url = `${API}/repos/${fullName}/issues/${number}`;
  return {
    id: 1000 + number,
    node_id: `I_${number}`,
    url,
    repository_url: `${API}/repos/${fullName}`,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `https://github.com/${fullName}/issues/${number}`,
    number,
    state,
    title,
    body,
    user: user("reporter"),
    labels: [{ name: "bug" }],
    assignee: null,
    milestone: null,
    locked: false,
    comments: 0,
    closed_at: null,
    created_at: WHEN,
    updated_at: WHEN,
    author_association: "NONE",
  };
}

function searchItem(fullName: string, number: number, title: string, body: string): SearchItem {
  const {
    labels: _labels,
    milestone: _milestone,
    body: _body,
    ...rest
  } = issue(fullName, number, title, body);
  return {
    ...rest,
    body,
    author_association: "NONE",
    labels: [{ name: "bug", color: "d73a4a" }],
    milestone: null,
    score: 1,
  };
}

function comment(fullName: string, number: number, id: number, body: string): Comment {
  return {
    id,
    node_id: `C_${id}`,
    url: `${API}/repos/${fullName}/issues/comments/${id}`,
    html_url: `https://github.com/${fullName}/issues/${number}#issuecomment-${id}`,
    body,
    user: user("ironclaw-user"),
    created_at: WHEN,
    updated_at: WHEN,
    issue_url: `${API}/repos/${fullName}/issues/${number}`,
    author_association: "OWNER",
  };
}

function pull(fullName: string, number: number, title: string): FullPull {
  const url = `${API}/repos/${fullName}/pulls/${number}`;
  const link = (href: string) => ({ href });
  const branch = (ref: string) => ({
    label: `octo:${ref}`,
    ref,
    repo: repository(fullName),
    sha: "a".repeat(40),
    user: user("octo"),
  });
  return {
    url,
    id: 2000 + number,
    node_id: `PR_${number}`,
    html_url: `https://github.com/${fullName}/pull/${number}`,
    diff_url: `${url}.diff`,
    patch_url: `${url}.patch`,
    issue_url: `${API}/repos/${fullName}/issues/${number}`,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${API}/repos/${fullName}/pulls/comments{/number}`,
    comments_url: `${API}/repos/${fullName}/issues/${number}/comments`,
    statuses_url: `${API}/repos/${fullName}/statuses/${"a".repeat(40)}`,
    number,
    state: "open",
    locked: false,
    title,
    user: user("octo"),
    body: "Makes it faster.",
    labels: [],
    milestone: null,
    created_at: WHEN,
    updated_at: WHEN,
    closed_at: null,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    head: branch(`feature-${number}`),
    base: branch("main"),
    _links: {
      comments: link(`${url}/comments`),
      commits: link(`${url}/commits`),
      statuses: link(`${url}/statuses`),
      html: link(`https://github.com/${fullName}/pull/${number}`),
      issue: link(`${API}/repos/${fullName}/issues/${number}`),
      review_comments: link(`${url}/comments`),
      review_comment: link(`${url}/comments{/number}`),
      self: link(url),
    },
    author_association: "OWNER",
    auto_merge: null,
    draft: false,
    merged: false,
    mergeable: true,
    mergeable_state: "clean",
    merged_by: null,
    maintainer_can_modify: false,
    comments: 0,
    review_comments: 0,
    commits: 1,
    additions: 12,
    deletions: 3,
    changed_files: 2,
  };
}

/** The fields only GET of one pull request answers; a list answers each without them. */
const FULL_PULL_ONLY = [
  "merged",
  "mergeable",
  "mergeable_state",
  "merged_by",
  "maintainer_can_modify",
  "comments",
  "review_comments",
  "commits",
  "additions",
  "deletions",
  "changed_files",
] as const;

function listed(full: FullPull): Pull {
  const simple: Partial<FullPull> = { ...full };
  for (const key of FULL_PULL_ONLY) delete simple[key];
  return simple as Pull;
}

/** The repository the fake holds: octo/demo, with `issueCount` issues (#1…) and two pull requests. */
export async function startGithubFake(options: { issueCount?: number } = {}): Promise<GithubFake> {
  const repo = "octo/demo";
  const issues = Array.from({ length: options.issueCount ?? 3 }, (_, i) =>
    issue(repo, i + 1, `Crash number ${i + 1}`, `Steps to reproduce ${i + 1}. ${"detail ".repeat(80)}`),
  );
  const pulls = [pull(repo, 10, "Faster start"), pull(repo, 11, "Fix the crash")];
  const ca = createCellCa();
  const leaf = ca.leafFor(GITHUB_HOST);
  const calls: GithubCall[] = [];
  const comments = new Map<string, string[]>();
  const token = "ghp_fakeTokenForTests0123456789abcdef";
  let nextComment = 500;
  const violations: string[] = [];
  const spec = githubSpec();
  // Every answer is held against GitHub's description of it before it leaves.
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const problem = spec.check(
      res.req.method ?? "GET",
      new URL(res.req.url ?? "/", API).pathname,
      status,
      body,
    );
    if (problem) violations.push(problem);
    return reply(res, status, body, headers);
  };

  const server: Server = createServer({ key: leaf.keyPem, cert: leaf.certPem }, (req, res) => {
    void readBody(req).then((body) => {
      const url = new URL(req.url ?? "/", API);
      calls.push({
        method: req.method ?? "",
        path: url.pathname + url.search,
        authorization: req.headers.authorization,
        body,
      });
      route(req.method ?? "GET", url, body, res);
    });
  });

  function route(method: string, url: URL, body: unknown, res: ServerResponse): boolean {
    const auth = calls.at(-1)?.authorization ?? "";
    if (auth !== `token ${token}` && auth !== `bearer ${token}`)
      return send(res, 401, {
        message: "Bad credentials",
        documentation_url: "https://docs.github.com/rest",
      });
    const parts = url.pathname.split("/").filter(Boolean);
    if (parts[0] === "repos" && parts[1] === "limited")
      return send(
        res,
        403,
        { message: "API rate limit exceeded" },
        {
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 90),
        },
      );
    if (parts[0] === "repos" && parts[1] === "throttled")
      return send(res, 429, { message: "You have exceeded a secondary rate limit" }, { "retry-after": "30" });
    if (method === "GET" && url.pathname === "/search/issues") {
      const words = (url.searchParams.get("q") ?? "").split(/\s+/).filter((w) => !w.includes(":"));
      const hits = issues.filter((i) => words.every((w) => i.title.toLowerCase().includes(w.toLowerCase())));
      const page = paged(url, hits, res);
      return send(res, 200, {
        total_count: hits.length,
        incomplete_results: false,
        search_type: "lexical",
        items: page.map((i) => searchItem(repo, i.number, i.title, i.body ?? "")),
      });
    }
    if (parts[0] !== "repos" || `${parts[1]}/${parts[2]}` !== repo)
      return send(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    const [, , , kind, num, sub] = parts;
    const number = Number(num);
    if (kind === "issues" && num === undefined && method === "GET") {
      const state = url.searchParams.get("state") ?? "open";
      return send(
        res,
        200,
        paged(
          url,
          issues.filter((i) => state === "all" || i.state === state),
          res,
        ),
      );
    }
    if (kind === "issues" && num === undefined && method === "POST") {
      const { title, body: text } = body as { title: string; body?: string };
      const created = issue(repo, issues.length + 1, title, text ?? "");
      issues.push(created);
      return send(res, 201, created);
    }
    if (kind === "issues" && sub === undefined && method === "GET") {
      const found = issues.find((i) => i.number === number);
      return found ? send(res, 200, found) : send(res, 404, { message: "Not Found" });
    }
    if (kind === "issues" && sub === "comments" && method === "POST") {
      if (!issues.some((i) => i.number === number)) return send(res, 404, { message: "Not Found" });
      const text = (body as { body: string }).body;
      const key = `${repo}#${number}`;
      comments.set(key, [...(comments.get(key) ?? []), text]);
      return send(res, 201, comment(repo, number, nextComment++, text));
    }
    if (kind === "pulls" && num === undefined && method === "GET")
      return send(res, 200, paged(url, pulls, res).map(listed));
    if (kind === "pulls" && method === "GET") {
      const found = pulls.find((p) => p.number === number);
      // GET one pull request answers the full pull-request schema: the list's fields and its counts.
      return found ? send(res, 200, found) : send(res, 404, { message: "Not Found" });
    }
    return send(res, 404, { message: "Not Found" });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    caPem: ca.certPem,
    token,
    calls,
    violations,
    comments,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One page of `items` as GitHub pages them, with a Link header naming the next and last pages. */
function paged<T>(url: URL, items: T[], res: ServerResponse): T[] {
  const page = Number(url.searchParams.get("page") ?? "1");
  const perPage = Number(url.searchParams.get("per_page") ?? "30");
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (p: number, rel: string) => {
    const next = new URL(url);
    next.searchParams.set("page", String(p));
    return `<${next.href}>; rel="${rel}"`;
  };
  const links = [
    ...(page < last ? [link(page + 1, "next"), link(last, "last")] : []),
    ...(page > 1 ? [link(1, "first")] : []),
  ];
  if (links.length > 0) res.setHeader("link", links.join(", "));
  return items.slice((page - 1) * perPage, page * perPage);
}

/** Answers with JSON; true, so that a route can `return send(…)`. */
function reply(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): true {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
  return true;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}
