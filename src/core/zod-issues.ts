import type { z } from "zod";
import { type Issue, jsonPath } from "./errors.js";

/** Flattens a zod error into issues with JSON paths, one per failed rule, unions expanded to their branches. */
export function issuesFromZod(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): Issue[] {
  const out: Issue[] = [];
  collect(error.issues, prefix, out);
  return out;
}

function collect(
  issues: ReadonlyArray<z.core.$ZodIssue>,
  prefix: ReadonlyArray<PropertyKey>,
  out: Issue[],
): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    // A union with a discriminator that matched no branch keeps its own message; one whose branches all failed
    // reports the branch that got furthest, which is what the author most likely meant.
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const best = issue.errors.reduce((a, b) => (depth(b) > depth(a) ? b : a));
      collect(best, path, out);
      continue;
    }
    out.push({ path: jsonPath(path), message: issue.message, code: issue.code });
  }
}

function depth(issues: ReadonlyArray<z.core.$ZodIssue>): number {
  return Math.max(0, ...issues.map((i) => i.path.length * 100 - (i.code === "invalid_type" ? 1 : 0)));
}
