import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";

// Configuration by conversation (seed 003 §16.5): an admin's agent may propose a change to ironclawd.toml, as
// exact keys and values; the warden checks it against the config's schema, shows the person the diff, and writes
// the file only after the person confirms it in the UI or their own paired chat. A secret is never a value here:
// the change names the variable that holds it (`*_env`) and the person pastes the value into the warden's form.

export const SETTINGS_ACTIONS = ["propose"] as const;
export type SettingsAction = (typeof SETTINGS_ACTIONS)[number];

/** The most keys one proposal changes: a proposal is read whole by a person before it is confirmed. */
export const SETTINGS_CHANGES_MAX = 20;

/**
 * A TOML key path: bare keys and double-quoted keys joined by dots, like `pricing.local."llama3.1".input`; a
 * profile's top-level keys (`model`) and a budget's caps (`daily_usd`) are one key alone.
 */
export const SETTING_PATH_PATTERN =
  /^(?:[A-Za-z0-9_-]+|"[^"\\\n\r]{1,128}")(?:\.(?:[A-Za-z0-9_-]+|"[^"\\\n\r]{1,128}"))*$/;

/**
 * What a proposal changes: the warden's own `ironclawd.toml`, a user's agent profile (`profile:<user>/<agent>`,
 * the brain's config/agents/<agent>.toml) or a user's spend caps (`budget:<user>`, or one of their agents':
 * `budget:<user>/<agent>`).
 */
export const SETTINGS_TARGET_PATTERN =
  /^(?:ironclawd\.toml|profile:[A-Za-z0-9][A-Za-z0-9_-]{0,63}\/[A-Za-z0-9][A-Za-z0-9_-]{0,63}|budget:[A-Za-z0-9][A-Za-z0-9_-]{0,63}(?:\/[A-Za-z0-9][A-Za-z0-9_-]{0,63})?)$/;

const scalar = z.union(
  [
    aString()
      .max(4096, "must be at most 4096 characters")
      .refine((s) => !/[\0]/.test(s), "must not contain NUL"),
    aNumber(),
    aBoolean(),
  ],
  { error: "must be a string, a number, a boolean, a list of those, or null" },
);

export const settingValueSchema = z
  .union([scalar, z.array(scalar).max(100, "must hold at most 100 entries"), z.null()], {
    error: "must be a string, a number, a boolean, a list of those, or null",
  })
  .describe("the new value; null removes the key from the file, so it is back at its default");
export type SettingValue = z.output<typeof settingValueSchema>;

export const settingChangeSchema = z.strictObject({
  path: aString()
    .max(300, "must be at most 300 characters")
    .regex(
      SETTING_PATH_PATTERN,
      'must be keys joined by dots, like server.port or integrations.slack.bot_token_env (quote a key with dots: pricing.local."llama3.1".input)',
    )
    .describe(
      "the key, its tables and name joined by dots: integrations.slack.enabled in ironclawd.toml, model or " +
        "retrieval.top_k in a profile, daily_usd or monthly_usd in a budget",
    ),
  value: settingValueSchema,
});
export type SettingChange = z.output<typeof settingChangeSchema>;

export const settingsArgsSchemas = {
  propose: z.strictObject({
    target: aString()
      .regex(
        SETTINGS_TARGET_PATTERN,
        "must be ironclawd.toml, profile:<user>/<agent> or budget:<user> (budget:<user>/<agent> for one agent's caps)",
      )
      .default("ironclawd.toml")
      .describe(
        "what to change: ironclawd.toml (the warden's settings, the default), profile:<user>/<agent> (that " +
          "user's agent profile, like profile:alice/research) or budget:<user> (their spend caps in US dollars)",
      ),
    summary: aString()
      .trim()
      .min(1, "must not be empty")
      .max(500, "must be at most 500 characters")
      .describe("what the change does and why, in one or two sentences the person reads before confirming"),
    changes: z
      .array(settingChangeSchema)
      .min(1, "must hold at least one change")
      .max(SETTINGS_CHANGES_MAX, `must hold at most ${SETTINGS_CHANGES_MAX} changes`)
      .describe("the keys to set, each once"),
  }),
} as const;
export type SettingsArgs = { [A in SettingsAction]: z.output<(typeof settingsArgsSchemas)[A]> };
