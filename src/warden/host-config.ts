import { closeSync, constants, existsSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { loadHostConfig } from "../cells/index.js";
import { type IronclawdConfig, ironclawdConfigSchema } from "../contracts/index.js";
import { renderTomlTemplate } from "../core/index.js";
import { DEFAULT_SUSPICIOUS_PATTERNS } from "./soul/index.js";

export const HOST_CONFIG_FILE = "ironclawd.toml";

/**
 * What a first start writes: every key of the schema, commented out at its default with its description, so
 * an operator sees everything that can be set. Rendered from the schema, so a new key appears here by itself.
 */
export function starterHostConfig(): string {
  return renderTomlTemplate(ironclawdConfigSchema, {
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
