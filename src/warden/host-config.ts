import { closeSync, constants, existsSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { loadHostConfig } from "../cells/index.js";
import type { IronclawdConfig } from "../contracts/index.js";

export const HOST_CONFIG_FILE = "ironclawd.toml";

/** What a first start writes: every setting at its default, commented, so an operator sees what exists. */
const STARTER = `# ironclawd.toml: the IronClaw warden's settings (seed 003 §10.1). Every key has a default.
# This file stays on the host; cells never see it.

[server]
# port = 7410
# bind = "127.0.0.1"          # exposing the warden is a decision: put it behind a TLS proxy
# public_url = "https://claw.example.org"   # the UI's origin when it is reached through a proxy
# body_limit = 1048576        # the largest request body, in bytes

[limits]
# max_message_bytes = 262144  # the largest chat message (UTF-8 bytes) any door takes; a larger one is refused
#                             # with an error naming this limit. A request body is also held to body_limit.

[cells]
# backend = "auto"            # auto | microvm | bwrap | process
# idle_stop_minutes = 15
# suspend_idle = true         # microVM cells: an idle cell is saved to disk and resumes in under a second
#                             # (its memory, ~130-180 MiB, beside the brain) instead of being stopped
# suspended_keep_days = 7      # a save older than this is deleted; that cell boots next time
# pool_size = 1               # blank cells kept started, so a user's first message skips the cell's start
#                             # (bwrap under a root warden; each waiting cell holds ~90 MiB; 0 = off)

# Model providers offered to the agents in cells. Keys stay here, in the warden's environment.
# OpenRouter is offered by default with the key in OPENROUTER_API_KEY.
# [providers.local]
# base_url = "http://127.0.0.1:11434/v1"   # Ollama, vLLM, llama.cpp server…
# [providers.openrouter]
# base_url = "https://openrouter.ai/api/v1"
# api_key_env = "OPENROUTER_API_KEY"

# What a new user's brain starts with.
# [new_brains]
# provider = "local"
# model = "llama3.1"

# The browser tool's network, fetched by the warden for the cells.
# [egress]
# policy = "allow"            # allow: any public host but deny_hosts; deny: only allow_hosts
# deny_hosts = []
# allow_hosts = []

# The agent's changes to soul.md, identity.md, instructions/*.md and persona files, against the approved version.
# [soul_guard]
# enabled = true
# max_change_ratio = 0.5      # share of the approved text changed before a person must approve

# Spend caps: set them with \`ironclaw budget set\`; these are their rules. Prices in USD per million tokens
# (a dated table ships with IronClaw: \`ironclaw budget prices\`); a model with no price under a cap is refused.
# [budgets]
# timezone = "UTC"            # when days and months turn over, for users without their own
# allow_unpriced = false
# default_max_tokens = 4096   # the output reserved (and requested) for a call that names no max_tokens
# [pricing.local."llama3.1"]
# input = 0
# output = 0

# [integrations.telegram]
# token_env = "TELEGRAM_BOT_TOKEN"
# secret_token_env = "TELEGRAM_WEBHOOK_SECRET"
`;

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
        writeSync(fd, STARTER);
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
