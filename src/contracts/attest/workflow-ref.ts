import { z } from "zod";
import { fieldRule } from "../common.js";

/**
 * `owner/repo/.github/workflows/<file>.yml@<commit>` (seed 002 §2). The commit must be the full 40-hex SHA:
 * verification compares it with a node's `commit_sha_required` (§5.2), and an abbreviated or branch pin
 * would let the workflow change under the certificate.
 */
const WORKFLOW_REF =
  /^([A-Za-z0-9](?:-?[A-Za-z0-9]){0,38})\/((?!\.\.?\/)[A-Za-z0-9._-]{1,100})\/(\.github\/workflows\/[A-Za-z0-9._-]+\.ya?ml)@([0-9a-f]{40})$/;

export interface WorkflowRef {
  owner: string;
  repo: string;
  /** The workflow file inside the repository, e.g. `.github/workflows/loom-paid-run.yml`. */
  path: string;
  commit: string;
}

export function parseWorkflowRef(ref: string): WorkflowRef | undefined {
  const match = WORKFLOW_REF.exec(ref);
  if (!match) return undefined;
  const [, owner = "", repo = "", path = "", commit = ""] = match;
  return { owner, repo, path, commit };
}

export const workflowRefField = z
  .string(fieldRule("must be a string"))
  .regex(WORKFLOW_REF, "must match owner/repo/.github/workflows/<file>.yml@<40-hex commit>");
