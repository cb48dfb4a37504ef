import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import type { GithubAction } from "./github-args.js";

// What each GitHub action answers, compact: the fields a person reads (title, number, state, url, a trimmed
// body), not GitHub's full objects, which run to kilobytes each and would fill the model's context.

/** Longest body text kept for an item of a list, and for one issue or pull request asked for by number. */
export const GITHUB_LIST_BODY_CHARS = 280;
export const GITHUB_ITEM_BODY_CHARS = 4000;

const count = aNumber().int("must be an integer").min(0, "must be a non-negative integer");
const login = aString().nullable();

export const githubIssueSchema = z.strictObject({
  number: count,
  title: aString(),
  state: aString(),
  url: aString(),
  author: login,
  labels: z.array(aString()),
  comments: count,
  updated_at: aString(),
  /** Issue listings and searches include pull requests; this says which one an item is. */
  is_pull_request: aBoolean(),
  body: aString(),
  body_truncated: aBoolean(),
});
export type GithubIssue = z.output<typeof githubIssueSchema>;

export const githubPullSchema = z.strictObject({
  number: count,
  title: aString(),
  state: aString(),
  url: aString(),
  author: login,
  draft: aBoolean(),
  /** Known when one pull request is asked for; listings do not say. */
  merged: aBoolean().optional(),
  head: aString(),
  base: aString(),
  updated_at: aString(),
  body: aString(),
  body_truncated: aBoolean(),
});
export type GithubPull = z.output<typeof githubPullSchema>;

export const githubCommentSchema = z.strictObject({
  id: count,
  url: aString(),
  author: login,
  issue_number: count,
});
export type GithubComment = z.output<typeof githubCommentSchema>;

/** A page of results and whether GitHub has more after it (its Link header names a next page). */
const pageOf = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    items: z.array(item),
    page: count,
    per_page: count,
    more: aBoolean(),
    /** Searches only: how many results match in all. */
    total_count: count.optional(),
  });

export const githubResultSchemas = {
  search_issues: pageOf(githubIssueSchema),
  list_issues: pageOf(githubIssueSchema),
  get_issue: z.strictObject({ issue: githubIssueSchema }),
  create_issue: z.strictObject({ issue: githubIssueSchema }),
  comment: z.strictObject({ comment: githubCommentSchema }),
  list_pulls: pageOf(githubPullSchema),
  get_pull: z.strictObject({ pull: githubPullSchema }),
} satisfies Record<GithubAction, z.ZodType>;

export type GithubResults = { [A in GithubAction]: z.output<(typeof githubResultSchemas)[A]> };

/** Cuts a body to `max` characters, saying whether it did. */
export function trimBody(
  text: string | null | undefined,
  max: number,
): { body: string; body_truncated: boolean } {
  const body = text ?? "";
  return body.length > max
    ? { body: `${body.slice(0, max)}…`, body_truncated: true }
    : { body, body_truncated: false };
}
