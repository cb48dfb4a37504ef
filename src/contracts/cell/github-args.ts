import { z } from "zod";
import { aNumber, aString } from "../common.js";

// The GitHub integration's actions and their arguments: one schema each, which is what the model is shown as the
// tool's parameters, what the cell validates the model's call with, and what the warden checks the frame against.
// GitHub's own limits: a search query of at most 256 characters, at most 100 results a page, an issue title of at
// most 256 characters and a body of at most 65536.

export const GITHUB_ACTIONS = [
  "search_issues",
  "list_issues",
  "get_issue",
  "create_issue",
  "comment",
  "list_pulls",
  "get_pull",
] as const;
export type GithubAction = (typeof GITHUB_ACTIONS)[number];

/** GitHub's per_page ceiling. */
export const GITHUB_PER_PAGE_MAX = 100;

// GitHub owner names: letters, digits and single hyphens, at most 39; repository names: letters, digits, `.`,
// `-` and `_`, at most 100, never `.` or `..`.
const repo = aString()
  .regex(
    /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/,
    "must be owner/name, like octocat/hello-world",
  )
  .describe("the repository, as owner/name");
const issueNumber = aNumber()
  .int("must be an integer")
  .min(1, "must be at least 1")
  .describe("the issue or pull request number");
const page = aNumber()
  .int("must be an integer")
  .min(1, "must be at least 1")
  .max(1000, "must be at most 1000")
  .optional()
  .describe("which page of results, from 1 (default 1)");
const perPage = aNumber()
  .int("must be an integer")
  .min(1, "must be at least 1")
  .max(GITHUB_PER_PAGE_MAX, `must be at most ${GITHUB_PER_PAGE_MAX}`)
  .optional()
  .describe(`results per page, at most ${GITHUB_PER_PAGE_MAX} (default 30)`);
const state = z
  .enum(["open", "closed", "all"], "must be one of open, closed, all")
  .optional()
  .describe("open (default), closed or all");
const body = aString().max(65_536, "must be at most 65536 characters");

export const githubArgsSchemas = {
  search_issues: z.strictObject({
    query: aString()
      .trim()
      .min(1, "must not be empty")
      .max(256, "must be at most 256 characters")
      .describe('GitHub search syntax, such as "repo:octocat/hello-world is:open label:bug crash"'),
    page,
    per_page: perPage,
  }),
  list_issues: z.strictObject({
    repo,
    state,
    labels: z
      .array(aString().min(1, "must not be empty").max(50, "must be at most 50 characters"))
      .max(20, "must list at most 20 labels")
      .optional()
      .describe("only issues with all of these labels"),
    page,
    per_page: perPage,
  }),
  get_issue: z.strictObject({ repo, number: issueNumber }),
  create_issue: z.strictObject({
    repo,
    title: aString()
      .trim()
      .min(1, "must not be empty")
      .max(256, "must be at most 256 characters")
      .describe("the issue's title"),
    body: body.optional().describe("the issue's text, in Markdown"),
    labels: z
      .array(aString().min(1, "must not be empty").max(50, "must be at most 50 characters"))
      .max(20, "must list at most 20 labels")
      .optional()
      .describe("labels to put on the issue"),
  }),
  comment: z.strictObject({
    repo,
    number: issueNumber,
    body: body.trim().min(1, "must not be empty").describe("the comment, in Markdown"),
  }),
  list_pulls: z.strictObject({ repo, state, page, per_page: perPage }),
  get_pull: z.strictObject({ repo, number: issueNumber.describe("the pull request number") }),
} satisfies Record<GithubAction, z.ZodType>;

export type GithubArgs = { [A in GithubAction]: z.output<(typeof githubArgsSchemas)[A]> };
