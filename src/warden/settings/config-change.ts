import { parse } from "smol-toml";
import type { z } from "zod";
import { type IronclawdConfig, ironclawdConfigSchema, type SettingChange } from "../../contracts/index.js";
import {
  ConfigError,
  canonicalJson,
  configKeyPaths,
  InvalidInputError,
  parseTomlConfig,
} from "../../core/index.js";
import { unifiedDiff } from "./file-diff.js";
import { setTomlKey, settingSegments } from "./toml-edit.js";

/** A proposed change, checked and written out: the whole new file, its diff and the variables it needs. */
export interface ConfigDraft {
  text: string;
  /** The unified diff of the file, secret values masked. */
  diff: string;
  /** Variables the change names for secrets (values of `*_env` keys): the person pastes each into a form. */
  secrets: string[];
  config: IronclawdConfig;
}

// The schema's own keys, with its placeholders (`<name>`, `"<model>"`) matching any name: a key is a secret when
// the schema offers `<key>_env` beside it (token, bot_token, signing_secret, api_key, app_secret…).
const SCHEMA_PATHS = configKeyPaths(ironclawdConfigSchema).map(schemaSegments);
const SECRET_KEYS = new Set(
  SCHEMA_PATHS.flatMap((path) => {
    const last = path.at(-1) ?? "";
    if (!last.endsWith("_env")) return [];
    const inline = last.slice(0, -"_env".length);
    return SCHEMA_PATHS.some((p) => p.length === path.length && p.at(-1) === inline && samePrefix(p, path))
      ? [inline]
      : [];
  }),
);
/** Keys whose values are public by nature though long and random-looking (Discord's public key, ids). */
const PUBLIC_KEYS = new Set(["public_key", "application_id", "phone_number_id"]);

const FILE = "ironclawd.toml";

/**
 * Checks one proposal against the file as it is now and writes it out. Refused, with an InvalidInputError naming
 * the key and the rule: a secret given as a value, a key the file's layout cannot take, a result the config's
 * schema refuses, or no change at all. Nothing is written anywhere here.
 */
export function draftConfigChange(base: string, changes: readonly SettingChange[]): ConfigDraft {
  const { text, value: config } = draftTomlEdit(base, changes, {
    file: FILE,
    schema: ironclawdConfigSchema,
    minimumSegments: 2,
    refuse: refuseSecret,
  });
  const secrets = [
    ...new Set(
      changes.flatMap((c) => (c.path.endsWith("_env") && typeof c.value === "string" ? [c.value] : [])),
    ),
  ].sort();
  const hidden = [...secretValuesIn(base), ...secretValuesIn(text)];
  return { text, diff: maskSecrets(unifiedDiff(base, text, FILE), hidden), secrets, config };
}

/** How one TOML file takes a change: its name in messages, its schema, and what it refuses outright. */
export interface TomlEditRules<T> {
  file: string;
  schema: z.ZodType<T>;
  /** ironclawd.toml has no key outside a table (2); a profile has (1). */
  minimumSegments: number;
  refuse: (change: SettingChange, segments: string[]) => void;
}

/**
 * Writes each change into the file's text in place, checks that the text parses to exactly the old values plus
 * the change (a layout a line edit cannot reach is refused), then checks the whole against the file's schema.
 */
export function draftTomlEdit<T>(
  base: string,
  changes: readonly SettingChange[],
  rules: TomlEditRules<T>,
): { text: string; value: T } {
  let expected = parseBase(base, rules.file);
  let text = base;
  const seen = new Set<string>();
  for (const [index, change] of changes.entries()) {
    const segments = settingSegments(change.path, rules.minimumSegments);
    const key = canonicalJson(segments);
    if (seen.has(key))
      throw new InvalidInputError(`changes[${index}].path`, `changes ${change.path} a second time`);
    seen.add(key);
    rules.refuse(change, segments);
    text = setTomlKey(text, segments, change.value, rules.file);
    expected = withValue(expected, segments, change.value);
    const written = parseText(text);
    if (written === undefined || canonicalJson(written) !== canonicalJson(expected))
      throw new InvalidInputError(
        change.path,
        `cannot be written into ${rules.file} as it is laid out (an inline table, a dotted key or a value over ` +
          "several lines holds it): the person changes it by hand",
      );
  }
  if (text === base)
    throw new InvalidInputError("changes", "change nothing: every key already has that value");
  try {
    return { text, value: parseTomlConfig(text, rules.schema, rules.file) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const [first, ...more] = error.problems;
    const also = more.map((p) => `; ${p.key}: ${p.rule}`).join("");
    throw new InvalidInputError(
      first?.key ?? "changes",
      `${first?.rule ?? "is refused by the schema"}${also}`,
    );
  }
}

/**
 * A diff that shows no secret: a diff is read in the UI, a chat and the agent's answer (its context lines too).
 * Every line assigning a secret key loses its value, and every value in `hidden` is blanked wherever it stands
 * (an inline table, a dotted or quoted key: layouts a line's shape does not reveal).
 */
export function maskSecrets(text: string, hidden: readonly string[] = []): string {
  let masked = text.replace(/^([-+ ]?\s*#?\s*)([A-Za-z0-9_-]+)(\s*=\s*).*$/gm, (line, lead, key, eq) =>
    SECRET_KEYS.has(key) ? `${lead}${key}${eq}"••••••" (hidden)` : line,
  );
  for (const value of [...new Set(hidden)].sort((a, b) => b.length - a.length))
    masked = masked.split(value).join("••••••");
  return masked;
}

/** The secrets a TOML text holds: every string under a secret key, and every one that looks like a token. */
function secretValuesIn(text: string): string[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return [];
  }
  const found: string[] = [];
  const walk = (value: unknown, key: string) => {
    if (typeof value === "string") {
      if (value.length >= 4 && !PUBLIC_KEYS.has(key) && (SECRET_KEYS.has(key) || looksLikeSecret(value)))
        found.push(value);
    } else if (Array.isArray(value)) for (const item of value) walk(item, key);
    else if (value !== null && typeof value === "object")
      for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(doc, "");
  return found;
}

function refuseSecret(change: SettingChange, segments: string[]): void {
  const key = segments.at(-1) ?? "";
  const form = "the person pastes the value into the warden's form, never into the chat";
  // Removing an inline secret (for its variable instead) passes no secret.
  if (change.value === null) return;
  if (SECRET_KEYS.has(key) && isSchemaKey(segments))
    throw new InvalidInputError(
      change.path,
      `holds a secret, which never goes through the agent: set ${key}_env to the name of a variable instead, and ${form}`,
    );
  if (PUBLIC_KEYS.has(key)) return;
  const values = Array.isArray(change.value) ? change.value : [change.value];
  if (values.some((v) => typeof v === "string" && looksLikeSecret(v)))
    throw new InvalidInputError(
      change.path,
      `looks like a secret (a token or a key), which never goes through the agent: name a variable in a *_env key, and ${form}`,
    );
}

/** Tokens by their published prefixes, and long unbroken random-looking strings. */
export function looksLikeSecret(value: string): boolean {
  if (/^(?:xox[abposr]-|xapp-|sk-|sk_|rk_|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|AKIA|AIza|eyJ)/.test(value))
    return true;
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(value)) return true;
  if (/^\d{5,}:[A-Za-z0-9_-]{30,}$/.test(value)) return true;
  // A long run without spaces or URL punctuation that mixes letters and digits: a key, not a name or a path.
  return /^[A-Za-z0-9+_=-]{32,}$/.test(value) && /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

function isSchemaKey(segments: string[]): boolean {
  return SCHEMA_PATHS.some(
    (p) => p.length === segments.length && p.at(-1) === segments.at(-1) && samePrefix(p, segments),
  );
}

function samePrefix(schema: string[], path: string[]): boolean {
  return schema
    .slice(0, -1)
    .every((s, i) => isPlaceholder(s) || isPlaceholder(path[i] ?? "") || s === path[i]);
}

function isPlaceholder(segment: string): boolean {
  return /^<.+>$/.test(segment);
}

function schemaSegments(path: string): string[] {
  return (path.match(/"[^"]*"|[^.]+/g) ?? []).map((s) => s.replace(/^"|"$/g, ""));
}

function parseBase(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidInputError(
      file,
      `does not parse as it is now (${(error as Error).message.split("\n")[0]}): fix it by hand first`,
    );
  }
}

function parseText(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

/** A copy of `tree` with the key at `segments` set to `value`, or removed for null. */
function withValue(
  tree: Record<string, unknown>,
  segments: string[],
  value: unknown,
): Record<string, unknown> {
  const copy = structuredClone(tree);
  let at: Record<string, unknown> = copy;
  for (const segment of segments.slice(0, -1)) {
    const next = at[segment];
    if (typeof next !== "object" || next === null || Array.isArray(next)) at[segment] = {};
    at = at[segment] as Record<string, unknown>;
  }
  const key = segments.at(-1) ?? "";
  if (value === null) delete at[key];
  else at[key] = value;
  return copy;
}
