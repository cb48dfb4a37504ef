import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import { CALENDAR_ACTIONS, calendarArgsSchemas } from "./calendar-args.js";
import { GITHUB_ACTIONS, githubArgsSchemas } from "./github-args.js";
import { MAIL_ACTIONS, mailArgsSchemas } from "./mail-args.js";
import { protocolHeader } from "./protocol-header.js";
import { SETTINGS_ACTIONS, settingsArgsSchemas } from "./settings-args.js";

// Integrations (issue #38): typed tools whose client runs in the warden with the user's own credential, so the
// model and the cell never see it. The agent in a cell asks for one action of one integration with typed
// arguments; the warden checks them again, calls the service through its egress checks, audits the call and
// answers with compact data or why not. Calendar and email join GitHub here as further names and action sets.

// `settings` is the warden itself: an admin's agent proposes a change to ironclawd.toml, which a person confirms.
export const INTEGRATION_NAMES = ["github", "calendar", "mail", "settings"] as const;
export type IntegrationName = (typeof INTEGRATION_NAMES)[number];

/** Each integration's actions and the schema of each action's arguments. */
export const INTEGRATION_ACTIONS = {
  github: GITHUB_ACTIONS,
  calendar: CALENDAR_ACTIONS,
  mail: MAIL_ACTIONS,
  settings: SETTINGS_ACTIONS,
} as const;
const ARGS_SCHEMAS: Record<IntegrationName, Record<string, z.ZodType>> = {
  github: githubArgsSchemas,
  calendar: calendarArgsSchemas,
  mail: mailArgsSchemas,
  settings: settingsArgsSchemas,
};

/**
 * Why an integration call was not served: `not_configured` (the user holds no credential for it), `invalid`
 * (the service or the warden refused the arguments), `not_found`, `forbidden` (the credential may not do it),
 * `rate_limited` (retry after `retry_after_s`), `refused` (the host's egress rules refused the address),
 * `upstream` (the service failed), `failed` (the warden could not complete it; the reason is in its log).
 */
export const INTEGRATION_ERROR_CODES = [
  "not_configured",
  "invalid",
  "not_found",
  "forbidden",
  "rate_limited",
  "refused",
  "upstream",
  "failed",
] as const;
export type IntegrationErrorCode = (typeof INTEGRATION_ERROR_CODES)[number];

export const integrationNameSchema = z.enum(
  INTEGRATION_NAMES,
  `must be one of ${INTEGRATION_NAMES.join(", ")}`,
);

/**
 * Inmate → warden: one action of one integration. The arguments are checked against the action's schema,
 * each problem named by its field (`args.repo: must be owner/name…`); nothing here names a URL, a host or a
 * credential, so a cell can only ask for what the action means.
 */
export const integrationRequestSchema = z
  .strictObject({
    type: z.literal("IntegrationRequest"),
    ...protocolHeader,
    integration: integrationNameSchema,
    action: aString().min(1, "must not be empty").max(64, "must be at most 64 characters"),
    args: z.record(z.string(), z.unknown(), { error: "must be a JSON object" }),
  })
  .superRefine((msg, ctx) => {
    const actions = ARGS_SCHEMAS[msg.integration];
    const schema = actions[msg.action];
    if (!schema) {
      ctx.addIssue({
        code: "custom",
        path: ["action"],
        message: `must be one of ${Object.keys(actions).join(", ")}`,
        input: msg.action,
      });
      return;
    }
    const parsed = schema.safeParse(msg.args);
    if (parsed.success) return;
    for (const issue of parsed.error.issues)
      ctx.addIssue({
        code: "custom",
        path: ["args", ...issue.path],
        message: issue.message,
        input: msg.args,
      });
  });
export type IntegrationRequest = z.output<typeof integrationRequestSchema>;

export const integrationErrorSchema = z.strictObject({
  code: z.enum(INTEGRATION_ERROR_CODES, `must be one of ${INTEGRATION_ERROR_CODES.join(", ")}`),
  message: aString().min(1, "must not be empty").max(2000, "must be at most 2000 characters"),
  /** For `rate_limited`: seconds until the service takes calls again, as it said (Retry-After or its reset). */
  retry_after_s: aNumber().int("must be an integer").min(0, "must be a non-negative integer").optional(),
});
export type IntegrationError = z.output<typeof integrationErrorSchema>;

/**
 * Warden → inmate: the answer to one IntegrationRequest (named by `reply_to`). `data` is the action's compact
 * result (github-results.ts holds each action's shape; the cell checks it against that), or `error` says why not.
 */
export const integrationResultSchema = z
  .strictObject({
    type: z.literal("IntegrationResult"),
    ...protocolHeader,
    ok: aBoolean(),
    data: z.record(z.string(), z.unknown()).optional(),
    error: integrationErrorSchema.optional(),
  })
  .superRefine((msg, ctx) => {
    const misplaced = msg.ok
      ? msg.data === undefined
        ? ["data", "is required when ok is true"]
        : msg.error !== undefined
          ? ["error", "must not be given when ok is true"]
          : undefined
      : msg.error === undefined
        ? ["error", "is required when ok is false"]
        : msg.data !== undefined
          ? ["data", "must not be given when ok is false"]
          : undefined;
    if (misplaced)
      ctx.addIssue({
        code: "custom",
        path: [misplaced[0] as string],
        message: misplaced[1] as string,
        input: msg,
      });
  });
export type IntegrationResult = z.output<typeof integrationResultSchema>;
