import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { loadHostConfig } from "../cells/index.js";
import { type IronclawdConfig, ironclawdConfigSchema } from "../contracts/index.js";
import { ConfigError, parseTomlConfig, renderTomlTemplate } from "../core/index.js";
import { writePrivateFile } from "./host-env-file.js";
import { DEFAULT_SUSPICIOUS_PATTERNS } from "./soul/index.js";

export const HOST_CONFIG_FILE = "ironclawd.toml";

/**
 * What a first start writes: every key of the schema, commented out at its default with its description, so
 * an operator sees everything that can be set. Rendered from the schema, so a new key appears here by itself.
 */
export function starterHostConfig(values: Record<string, unknown> = {}): string {
  return renderTomlTemplate(ironclawdConfigSchema, {
    values,
    header: [
      "ironclawd.toml: the IronClaw warden's settings (seed 003 §10.1). Every key has a default: each is shown",
      "commented out at it (or, where it has none, at an example, marked so). Remove the # to change one.",
      "This file stays on the host; cells never see it.",
    ].join("\n"),
    defaults: { "soul_guard.suspicious_patterns": DEFAULT_SUSPICIOUS_PATTERNS },
  });
}

/**
 * IRONCLAW_HOME and its ironclawd.toml on first start (the home 0700, the file 0600: it may hold tokens), then
 * the config as validated. A bad file is a ConfigError naming the line and the key.
 */
export function prepareHome(home: string): { config: IronclawdConfig; created: boolean } {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const file = join(home, HOST_CONFIG_FILE);
  let created = false;
  if (!existsSync(file)) {
    try {
      const fd = openSync(
        file,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      try {
        writeSync(fd, starterHostConfig());
      } finally {
        closeSync(fd);
      }
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return { config: loadHostConfig(home), created };
}

/**
 * What ironclawd.toml sets, as written (not the defaults filled in): what a rewrite must keep. Empty when there is
 * no file; a ConfigError naming the line when it is not TOML.
 */
export function readHostConfigValues(home: string): Record<string, unknown> {
  const file = join(home, HOST_CONFIG_FILE);
  if (!existsSync(file)) return {};
  const text = readFileSync(file, "utf8");
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (cause) {
    const line = (cause as { line?: number }).line;
    const rule = (cause as Error).message.split("\n")[0] ?? "invalid TOML";
    throw new ConfigError(file, [{ key: "(syntax)", rule, ...(line === undefined ? {} : { line }) }], {
      cause,
    });
  }
}

/**
 * Writes ironclawd.toml setting `values`, every other key shown commented at its default as on a first start.
 * The text is validated before anything is written (a ConfigError names the key and the rule, and the file stays
 * as it was); an existing file is first copied to ironclawd.toml.bak-<time>, whose path is returned.
 */
export function writeHostConfig(
  home: string,
  values: Record<string, unknown>,
  now: Date = new Date(),
): { file: string; backup: string | undefined } {
  const file = join(home, HOST_CONFIG_FILE);
  const text = starterHostConfig(values);
  parseTomlConfig(text, ironclawdConfigSchema, file);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  let backup: string | undefined;
  if (existsSync(file)) {
    backup = `${file}.bak-${now.toISOString().replace(/[:.]/g, "-")}`;
    copyFileSync(file, backup, constants.COPYFILE_EXCL);
    chmodSync(backup, 0o600);
  }
  writePrivateFile(file, text);
  return { file, backup };
}
