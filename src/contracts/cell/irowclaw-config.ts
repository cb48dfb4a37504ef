import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import { defineContract } from "../registry.js";
import { absolutePath } from "./brain-path.js";
import { hostPattern, httpUrl } from "./host-names.js";
import { agentName, envVarName, providerName, TOOL_KINDS, toolAllowList } from "./names.js";

/**
 * A model provider speaking the OpenAI-compatible API. The brain is a user-editable disk, so it holds
 * credential references only: the key itself lives in the named environment variable of the cell.
 */
export const providerSchema = z.strictObject({
  base_url: httpUrl.meta({
    description: "The provider's OpenAI-compatible API. In a cell the warden's [providers] are used instead.",
    examples: ["https://openrouter.ai/api/v1"],
  }),
  // Optional because local servers (Ollama, llama.cpp) need no key.
  api_key_env: envVarName.optional().meta({
    description: "The environment variable holding the key; keys themselves are never written in the brain.",
    examples: ["OPENROUTER_API_KEY"],
  }),
  api_key: z
    .never({
      error:
        "inline secrets are not allowed in the brain: set api_key_env to the environment variable holding the key",
    })
    .optional(),
});
export type ProviderConfig = z.output<typeof providerSchema>;

const toolsSchema = z
  .strictObject({
    // The cell is the sandbox.
    allow: toolAllowList
      .default([...TOOL_KINDS])
      .describe(
        `The tools this brain's agents may use (${TOOL_KINDS.join(", ")}): the ceiling for every agent; a profile can only narrow it.`,
      ),
    bash: z
      .strictObject({
        timeout_ms: aNumber()
          .int("must be an integer")
          .min(100, "must be at least 100 ms")
          .max(3_600_000, "must be at most 3600000 ms (one hour)")
          .default(30_000)
          .describe("How long one command may run before it is killed, in milliseconds."),
        max_output_bytes: aNumber()
          .int("must be an integer")
          .min(1024, "must be at least 1024 bytes")
          .max(16 * 1024 * 1024, "must be at most 16777216 bytes")
          .default(64 * 1024)
          .describe("Where a command's output (stdout and stderr together) is cut, in bytes."),
      })
      .prefault({})
      .describe("The bash tool."),
    file: z
      .strictObject({
        workspace: absolutePath
          .default("/tmp/workspace")
          .describe("The bash tool's working directory and, with the brain, a root of the file tool."),
        extra_roots: z
          .array(absolutePath)
          .default([])
          .describe(
            "Further directories the file tool may use; the brain and the workspace are always roots.",
          ),
      })
      .prefault({})
      .describe("The file tool."),
    browser: z
      .strictObject({
        max_bytes: aNumber()
          .int("must be an integer")
          .min(1024, "must be at least 1024 bytes")
          .max(64 * 1024 * 1024, "must be at most 67108864 bytes")
          .default(2 * 1024 * 1024)
          .describe("The largest page fetched, in bytes; the rest is cut off."),
        timeout_ms: aNumber()
          .int("must be an integer")
          .min(100, "must be at least 100 ms")
          .max(300_000, "must be at most 300000 ms")
          .default(15_000)
          .describe("How long one fetch may take, in milliseconds."),
        allow_private: aBoolean()
          .default(false)
          .describe(
            "Let the browser reach loopback, private and link-local addresses (local services); off unless you opt in.",
          ),
      })
      .prefault({})
      .describe("The browser tool. In a cell the warden fetches, and its [egress] limits apply as well."),
    network: z
      .strictObject({
        egress: z
          .enum(["deny", "allow"], "must be one of deny, allow")
          .default("deny")
          .describe("deny: only allow_hosts are fetched; allow: any host but deny_hosts (seed 003 §11)."),
        allow_hosts: z
          .array(hostPattern)
          .default([])
          .describe('Hosts fetched under egress = "deny"; *.example.org covers its subdomains.'),
        deny_hosts: z.array(hostPattern).default([]).describe('Hosts refused under egress = "allow".'),
      })
      .prefault({})
      .describe("Which hosts the browser tool may fetch."),
  })
  .prefault({})
  .describe("The agent's tools.");

/** The loop's limits; a profile may override them for one agent. */
export const agentLimitsShape = {
  max_steps: aNumber()
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(1000, "must be at most 1000"),
  // The model's context window, and the head room below it at which the pre-compaction flush runs (§7).
  context_tokens: aNumber()
    .int("must be an integer")
    .min(1024, "must be at least 1024 tokens")
    .max(10_000_000, "must be at most 10000000 tokens"),
  reserve_tokens: aNumber().int("must be an integer").min(256, "must be at least 256 tokens"),
};

/** What each limit means, for this file and for a profile's overrides. */
export const AGENT_LIMIT_DESCRIPTIONS = {
  max_steps: "The most model calls one turn may make before it stops.",
  context_tokens: "The model's context window, in tokens.",
  reserve_tokens: "The head room below context_tokens at which older messages are compacted (seed 003 §7).",
} as const;

const agentLimitsSchema = z
  .strictObject({
    max_steps: agentLimitsShape.max_steps.default(16).describe(AGENT_LIMIT_DESCRIPTIONS.max_steps),
    context_tokens: agentLimitsShape.context_tokens
      .default(128_000)
      .describe(AGENT_LIMIT_DESCRIPTIONS.context_tokens),
    reserve_tokens: agentLimitsShape.reserve_tokens
      .default(16_000)
      .describe(AGENT_LIMIT_DESCRIPTIONS.reserve_tokens),
  })
  .prefault({})
  .describe("The agent loop's limits; a profile may override them for one agent.")
  .refine((a) => a.reserve_tokens < a.context_tokens, {
    path: ["reserve_tokens"],
    message: "must be smaller than context_tokens",
  });

export const EMBEDDERS = ["local", "provider"] as const;

const indexingSchema = z
  .strictObject({
    chunk_max_bytes: aNumber()
      .int("must be an integer")
      .min(256, "must be at least 256 bytes")
      .max(65_536, "must be at most 65536 bytes")
      .default(2048)
      .describe("The largest piece of a note indexed as one, in bytes."),
    embedder: z
      .enum(EMBEDDERS, `must be one of ${EMBEDDERS.join(", ")}`)
      .default("local")
      .describe(
        "local: the built-in offline embedder, in the cell; provider: an OpenAI-compatible /v1/embeddings endpoint (seed 003 §15).",
      ),
    embedding_provider: providerName.optional().meta({
      description: "The provider of the embeddings, when embedder is provider.",
      examples: ["openrouter"],
    }),
    embedding_model: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description: "The embedding model, when embedder is provider.",
        examples: ["openai/text-embedding-3-small"],
      }),
    watch_debounce_ms: aNumber()
      .int("must be an integer")
      .min(0, "must be at least 0 ms")
      .max(60_000, "must be at most 60000 ms")
      .default(500)
      .describe("Quiet time after the last change in the brain before it is indexed again, in milliseconds."),
  })
  .prefault({})
  .describe("The memory index: how notes are cut and embedded for search.")
  .superRefine((indexing, ctx) => {
    for (const field of ["embedding_provider", "embedding_model"] as const) {
      const given = indexing[field] !== undefined;
      if (indexing.embedder === "provider" && !given) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: "is required when embedder is provider",
          input: indexing,
        });
      }
      if (indexing.embedder === "local" && given) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: "is only allowed when embedder is provider",
          input: indexing,
        });
      }
    }
  });

const days = (max: number) =>
  aNumber().int("must be an integer").min(1, "must be at least 1").max(max, `must be at most ${max}`);

/**
 * When a passage of logs/ or sessions/ that answers keep citing is proposed for memory.md (never written until
 * its owner approves): cited in `min_sessions` sessions on `min_days` days within the last `window_days`.
 */
const promotionSchema = z
  .strictObject({
    enabled: z
      .boolean({ error: "must be true or false" })
      .default(true)
      .describe("false: nothing is proposed."),
    min_sessions: days(1000).default(3).describe("Cited in at least this many sessions…"),
    min_days: days(365).default(2).describe("…on at least this many days…"),
    window_days: days(3650).default(30).describe("…within the last this many days."),
  })
  .prefault({})
  .describe(
    "Facts that answers keep citing from logs/ and sessions/ are proposed for memory.md, and written only when " +
      "you approve them in the memory inspector.",
  )
  .refine((p) => p.min_days <= p.window_days, {
    path: ["min_days"],
    message: "must be at most window_days",
  });

/** Installed skills as the system prompt lists them (seed 003 §16.2: progressive disclosure). */
const skillsSchema = z
  .strictObject({
    prompt_budget_chars: aNumber()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .max(100_000, "must be at most 100000 characters")
      .default(4000)
      .describe(
        "The most characters the list of installed skills (name, description, where SKILL.md is) takes in the " +
          "system prompt; skills past it are left out, and counted. 0 lists none.",
      ),
  })
  .prefault({})
  .describe(
    "Skills the user installed, read-only at /mnt/skills: only their names and descriptions enter the prompt; " +
      "the agent reads a skill's SKILL.md when it fits the task.",
  );

/** `/mnt/brain/config/irowclaw.toml`, the agent runtime's config (seed 003 §10.2). */
export const irowclawConfigSchema = z.strictObject({
  default_agent: agentName.meta({
    description: "The agent that answers when none is named: a profile in config/agents/.",
    examples: ["assistant"],
  }),
  providers: z
    .record(providerName, providerSchema, {
      error: (issue) =>
        issue.code === "invalid_key"
          ? "provider names must start with a letter or digit and use only letters, digits, - and _"
          : undefined,
    })
    .default({})
    .describe("Model providers the agents name, when the brain runs outside a cell."),
  tools: toolsSchema,
  indexing: indexingSchema,
  agent: agentLimitsSchema,
  promotion: promotionSchema,
  skills: skillsSchema,
});
// A profile's provider and the embedding provider may name a provider this file does not define: in a cell
// every provider is the warden's (ironclawd.toml [providers]), and a brain outside a cell reports an undefined
// one when it is used (UnknownProviderError, ConfigError from the embedder factory).
export type IrowclawConfig = z.output<typeof irowclawConfigSchema>;
export type IrowclawConfigInput = z.input<typeof irowclawConfigSchema>;

export const irowclawConfigContract = defineContract({
  kind: "irowclaw-config",
  seed: "003",
  title: "Agent runtime config (irowclaw.toml)",
  description:
    "The inmate's TOML config in the brain: default_agent, [providers.<name>] base_url and api_key_env " +
    "(a reference to an environment variable; inline keys are refused), [tools] allow list, bash timeout and " +
    "output cap, file workspace and roots, browser caps, network egress, [indexing] chunk size, embedder and " +
    "watch debounce, [agent] max steps and context budget, [skills] the prompt's budget for installed skills.",
  format: "toml",
  schema: irowclawConfigSchema,
});
