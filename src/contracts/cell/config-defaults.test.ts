import { describe, expect, it } from "vitest";
import { ConfigError, parseTomlConfig } from "../../core/index.js";
import { agentProfileSchema } from "./agent-profile.js";
import { cronJobsSchema } from "./cron-jobs.js";
import { ironclawdConfigSchema } from "./ironclawd-config.js";
import { irowclawConfigSchema } from "./irowclaw-config.js";

function configProblems(text: string, schema: Parameters<typeof parseTomlConfig>[1]) {
  try {
    parseTomlConfig(text, schema, "test.toml");
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe("config defaults", () => {
  it("reads an empty ironclawd.toml as the complete default config", () => {
    expect(parseTomlConfig("", ironclawdConfigSchema)).toEqual({
      server: { port: 7410, bind: "127.0.0.1", body_limit: 1_048_576 },
      limits: { max_message_bytes: 262_144 },
      cells: {
        backend: "auto",
        allow_tcg: false,
        allow_process: false,
        idle_stop_minutes: 15,
        suspend_idle: true,
        suspended_keep_days: 7,
        pool_size: 1,
      },
      storage: { users_dir: "users" },
      integrations: {
        github: { base_url: "https://api.github.com", timeout_ms: 30_000 },
        calendar: { username: "{user}", timeout_ms: 30_000 },
        mail: {
          imap_port: 993,
          smtp_port: 465,
          smtp_security: "tls",
          username: "{user}",
          from: "",
          timeout_ms: 30_000,
        },
      },
      ui: { enabled: true, path: "/ui" },
      providers: {},
      egress: {
        policy: "allow",
        allow_hosts: [],
        deny_hosts: [],
        allow_private: false,
        max_bytes: 4_194_304,
        timeout_ms: 20_000,
        secret_uses_per_minute: 120,
        proxy: true,
      },
      soul_guard: {
        enabled: true,
        max_change_ratio: 0.5,
        protected_words: [
          "never",
          "must not",
          "do not",
          "don't",
          "always",
          "refuse",
          "safety",
          "privacy",
          "secret",
        ],
      },
      auth: { session_ttl_hours: 168, login_link_ttl_minutes: 60, login_attempts_per_minute: 10 },
      new_brains: {},
      pricing: {},
      budgets: {
        timezone: "UTC",
        allow_unpriced: false,
        default_max_tokens: 4096,
        alert_percent: [50, 80, 100],
      },
      command: { enabled: true, workers: 1, lease_seconds: 60 },
      attest: { brain_history: true, certify_turns: true },
    });
  });

  it("fills the defaults of a table that is only partly written", () => {
    const config = parseTomlConfig("[server]\nport = 9000\n", ironclawdConfigSchema);
    expect(config.server).toEqual({ port: 9000, bind: "127.0.0.1", body_limit: 1_048_576 });
  });

  it("gives irowclaw every tool, denied egress and local embeddings by default", () => {
    const config = parseTomlConfig('default_agent = "assistant"\n', irowclawConfigSchema);
    expect(config.tools).toEqual({
      allow: ["bash", "file", "browser", "memory", "command", "github", "calendar", "mail", "settings"],
      bash: { timeout_ms: 30_000, max_output_bytes: 65_536 },
      file: { workspace: "/tmp/workspace", extra_roots: [] },
      browser: { max_bytes: 2_097_152, timeout_ms: 15_000, allow_private: false },
      network: { egress: "deny", allow_hosts: [], deny_hosts: [] },
    });
    expect(config.agent).toEqual({ max_steps: 16, context_tokens: 128_000, reserve_tokens: 16_000 });
    expect(config.indexing).toEqual({ chunk_max_bytes: 2048, embedder: "local", watch_debounce_ms: 500 });
    expect(config.providers).toEqual({});
  });

  it("runs a job in UTC and enabled unless the file says otherwise", () => {
    const jobs = parseTomlConfig('[[jobs]]\nid = "a"\nschedule = "@daily"\nprompt = "go"\n', cronJobsSchema);
    expect(jobs.jobs[0]).toEqual({
      id: "a",
      schedule: "@daily",
      prompt: "go",
      timezone: "UTC",
      enabled: true,
    });
  });

  it("reads an empty jobs file as no jobs", () => {
    expect(parseTomlConfig("", cronJobsSchema)).toEqual({ jobs: [] });
  });

  it("refuses a compaction reserve as large as the context window", () => {
    const text = 'default_agent = "a"\n[agent]\ncontext_tokens = 4096\nreserve_tokens = 4096\n';
    expect(() => parseTomlConfig(text, irowclawConfigSchema, "irowclaw.toml")).toThrow(
      "irowclaw.toml:4: agent.reserve_tokens: must be smaller than context_tokens",
    );
  });

  it("leaves an agent profile's optional parts absent rather than inventing them", () => {
    const profile = parseTomlConfig('name = "a"\nprovider = "openrouter"\nmodel = "m"\n', agentProfileSchema);
    expect(profile).toEqual({ name: "a", provider: "openrouter", model: "m" });
  });
});

describe("config problems", () => {
  it("points an inline api key at its line and says to use api_key_env", () => {
    const text =
      'default_agent = "a"\n\n[providers.openrouter]\nbase_url = "https://openrouter.ai/api/v1"\napi_key = "sk-or-v1-abc"\n';
    const [problem, ...rest] = configProblems(text, irowclawConfigSchema);
    expect(rest).toEqual([]);
    expect(problem?.key).toBe("providers.openrouter.api_key");
    expect(problem?.line).toBe(5);
    expect(problem?.rule).toMatch(/api_key_env/);
  });

  it("refuses a worker lease shorter than a second, naming the key and the rule", () => {
    expect(configProblems("[command]\nlease_seconds = 0\n", ironclawdConfigSchema)).toEqual([
      { key: "command.lease_seconds", rule: "must be at least 1 second", line: 2 },
    ]);
  });

  it("reports a repeated job id at the second job", () => {
    const job = '[[jobs]]\nid = "brief"\nschedule = "0 7 * * *"\nprompt = "go"\n';
    expect(configProblems(job + job, cronJobsSchema)).toEqual([
      { key: "jobs[1].id", rule: "repeats job id brief", line: 6 },
    ]);
  });
});
