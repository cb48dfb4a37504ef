import { z } from "zod";
import { envVarName, settingChangeSchema } from "../cell/index.js";
import { aString } from "../common.js";

// Configuration by conversation (seed 003 §16.5): the person's side of a change an admin's agent proposed to
// ironclawd.toml, a user's agent profile or a user's spend caps. Nothing is written until the person confirms; an applied change can be reverted in one step.

export const SETTINGS_PROPOSAL_STATUSES = ["pending", "applied", "rejected", "reverted", "expired"] as const;
export type SettingsProposalStatus = (typeof SETTINGS_PROPOSAL_STATUSES)[number];

/** A variable a proposal names for a secret, and whether the warden holds a value for it yet. */
export const settingsSecretSchema = z.strictObject({
  name: z.string(),
  set: z.boolean(),
});

/** One proposal as the person reads it: the change, the exact diff of the file, and where it stands. */
export const settingsProposalSchema = z.strictObject({
  id: z.string(),
  status: z.enum(SETTINGS_PROPOSAL_STATUSES),
  summary: z.string(),
  /** What it changes: `ironclawd.toml`, `profile:<user>/<agent>` or `budget:<user>[/<agent>]`. */
  target: z.string(),
  /** What the person reads as the changed file: ironclawd.toml, `bob's config/agents/research.toml`, `bob's spend caps`. */
  file: z.string(),
  changes: z.array(settingChangeSchema),
  /** A unified diff of the file (a budget's: its caps before and after), secret values masked. */
  diff: z.string(),
  /**
   * The warden reads ironclawd.toml when it starts (restart); a cell reads its profiles before each turn
   * (next_turn); caps hold from the next model call (now).
   */
  takes_effect: z.enum(["restart", "next_turn", "now"]),
  /** Secrets the change names by variable: each must be pasted into the warden's form before confirming. */
  secrets: z.array(settingsSecretSchema),
  proposed_by: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  decided_by: z.string().optional(),
  decided_at: z.string().optional(),
  reverted_by: z.string().optional(),
  reverted_at: z.string().optional(),
});

/** GET /api/settings/proposals: newest first. */
export const settingsProposalsSchema = z.strictObject({ proposals: z.array(settingsProposalSchema) });

export const settingsProposalParamsSchema = z.strictObject({
  id: z
    .string({ error: "must be a proposal id" })
    .regex(
      /^cfg_[0-9A-HJKMNP-TV-Z]{26}$/,
      "must be a proposal id like cfg_01J…, as GET /api/settings/proposals lists it",
    ),
});

/**
 * Names that steer the programs the warden starts (its cells, git, the sentinel get its environment) rather than
 * hold a secret: a value pasted for one of them would change how those programs run, so none may be set here.
 */
const STEERING_VARIABLE =
  /^(PATH|HOME|SHELL|ENV|BASH_ENV|CDPATH|IFS|TMPDIR|USER|LOGNAME|LANG|TZ|LC_\w*|NODE_\w*|NPM_\w*|LD_\w*|GIT_\w*|IRONCLAW_\w*|SSL_\w*|OPENSSL_\w*|PYTHON\w*|PERL\w*|RUBY\w*|GCONV_PATH|MALLOC_\w*|XDG_\w*|DBUS_\w*|SYSTEMD_\w*)$/;

/** PUT /api/settings/variables/:name — the variable a proposal names for a secret. */
export const settingsVariableParamsSchema = z.strictObject({
  name: envVarName.refine(
    (name) => !STEERING_VARIABLE.test(name),
    "must be a variable that holds a secret, not one that steers programs (PATH, HOME, NODE_*, LD_*, GIT_*, IRONCLAW_* and the like)",
  ),
});

/** The value goes to the warden once and never comes back in any answer. */
export const settingsVariableBodySchema = z.strictObject({
  value: aString()
    .min(1, "must not be empty")
    .max(8192, "must be at most 8192 characters")
    .refine((v) => !/[\0\r\n]/.test(v), "must be one line without NUL"),
});

export const settingsVariableSetSchema = z.strictObject({ name: z.string(), set: z.literal(true) });
