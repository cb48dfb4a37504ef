import { z } from "zod";
import { aString } from "../common.js";

/**
 * Names that become file names or config table keys (agent profiles, providers, cron jobs, tools): a letter or
 * digit first, then letters, digits, `-` or `_`, at most 64 characters, so they are safe in paths and TOML keys.
 */
export function nameToken(what: string, example: string) {
  return aString()
    .min(1, `${what} must not be empty`)
    .max(64, "must be at most 64 characters")
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_-]*$/,
      `${what} must start with a letter or digit and use only letters, digits, - and _ (like ${example})`,
    );
}

export const agentName = nameToken("an agent name", "research");
export const providerName = nameToken("a provider name", "openrouter");
export const cronJobId = nameToken("a job id", "morning-brief");
export const toolName = nameToken("a tool name", "bash");

/**
 * The tools an agent can be given (seed 003 §8.1); `github`, `calendar` and `mail` grant those integrations' tools
 * (issue #38).
 */
export const TOOL_KINDS = [
  "bash",
  "file",
  "browser",
  "memory",
  "command",
  "github",
  "calendar",
  "mail",
  "settings",
] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** A tool allow list: known tools only, each listed once. */
export const toolAllowList = z
  .array(z.enum(TOOL_KINDS, `must be one of ${TOOL_KINDS.join(", ")}`))
  .superRefine((tools, ctx) => {
    for (const [i, tool] of tools.entries()) {
      if (tools.indexOf(tool) !== i) {
        ctx.addIssue({ code: "custom", path: [i], message: `lists ${tool} twice`, input: tool });
      }
    }
  });

/** The name of an environment variable holding a secret, e.g. `OPENROUTER_API_KEY`. */
export const envVarName = aString().regex(
  /^[A-Z_][A-Z0-9_]*$/,
  "must name an environment variable in UPPER_SNAKE_CASE (like OPENROUTER_API_KEY), not hold the secret itself",
);
