import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../core/index.js";
import { starterHostConfig } from "../host-config.js";
import { draftConfigChange, looksLikeSecret } from "./config-change.js";

const starter = starterHostConfig();

function refusal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof InvalidInputError) return error.message;
    throw error;
  }
  throw new Error("not refused");
}

describe("a proposed change to ironclawd.toml", () => {
  it("opens a table the starter file only documents and sets the key under its documented line", () => {
    const draft = draftConfigChange(starter, [{ path: "server.port", value: 8080 }]);
    expect(draft.config.server.port).toBe(8080);
    expect(draft.diff).toContain("-# [server]\n+[server]");
    expect(draft.diff).toContain(" # port = 7410\n+port = 8080");
    expect(draft.diff.split("\n").slice(0, 2)).toEqual([
      "--- ironclawd.toml",
      "+++ ironclawd.toml (proposed)",
    ]);
    // Every other line of the file is kept as it was.
    expect(draft.text.replace("[server]", "# [server]").replace("port = 8080\n", "")).toBe(starter);
  });

  it("replaces a key already set in place, and null removes it", () => {
    const base = '[server]\nport = 8080 # ours\nbind = "127.0.0.1"\n';
    const moved = draftConfigChange(base, [{ path: "server.port", value: 9000 }]);
    expect(moved.text).toBe('[server]\nport = 9000\nbind = "127.0.0.1"\n');
    expect(moved.diff).toBe(
      [
        "--- ironclawd.toml",
        "+++ ironclawd.toml (proposed)",
        "@@ -1,3 +1,3 @@",
        " [server]",
        "-port = 8080 # ours",
        "+port = 9000",
        ' bind = "127.0.0.1"',
      ].join("\n"),
    );
    expect(draftConfigChange(base, [{ path: "server.port", value: null }]).config.server.port).toBe(7410);
    expect(refusal(() => draftConfigChange(base, [{ path: "server.body_limit", value: null }]))).toBe(
      "server.body_limit: is not set in ironclawd.toml, so there is nothing to remove",
    );
  });

  it("adds a table the file does not mention at its end, quoted keys included", () => {
    const draft = draftConfigChange("[server]\nport = 8080\n", [
      { path: 'pricing.local."llama3.1".input', value: 0 },
      { path: 'pricing.local."llama3.1".output', value: 0 },
    ]);
    expect(draft.text).toBe('[server]\nport = 8080\n\n[pricing.local."llama3.1"]\noutput = 0\ninput = 0\n');
    expect(draft.config.pricing.local?.["llama3.1"]).toEqual({ input: 0, output: 0 });
  });

  it("names the key and the schema's rule when the result is not a valid config", () => {
    expect(refusal(() => draftConfigChange(starter, [{ path: "server.port", value: 70000 }]))).toBe(
      "server.port: must be a TCP port from 1 to 65535",
    );
    expect(refusal(() => draftConfigChange(starter, [{ path: "server.colour", value: "blue" }]))).toMatch(
      /^server: .*colour/,
    );
    expect(
      refusal(() =>
        draftConfigChange(starter, [
          { path: "integrations.slack.enabled", value: true },
          { path: "integrations.slack.bot_token_env", value: "SLACK_BOT_TOKEN" },
        ]),
      ),
    ).toMatch(/^integrations\.slack\.signing_secret: is required \(or signing_secret_env\) when enabled/);
  });

  it("refuses a secret as a value: by its key, and by its look under any key", () => {
    expect(
      refusal(() => draftConfigChange(starter, [{ path: "integrations.slack.bot_token", value: "abc" }])),
    ).toMatch(
      /^integrations\.slack\.bot_token: holds a secret, .* set bot_token_env to the name of a variable/,
    );
    expect(
      refusal(() => draftConfigChange(starter, [{ path: "providers.local.api_key", value: "abc" }])),
    ).toMatch(/^providers\.local\.api_key: holds a secret/);
    expect(
      refusal(() =>
        draftConfigChange(starter, [{ path: "new_brains.model", value: "xoxb-1234-5678-abcdefghijkl" }]),
      ),
    ).toMatch(/^new_brains\.model: looks like a secret/);
    expect(looksLikeSecret("123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw")).toBe(true);
    expect(looksLikeSecret("sk-or-v1-0123456789abcdef")).toBe(true);
    expect(looksLikeSecret("anthropic/claude-3.5-haiku")).toBe(false);
    expect(looksLikeSecret("SLACK_BOT_TOKEN")).toBe(false);
  });

  it("names the variables a change points secrets at, and masks secret values in the diff", () => {
    const base =
      '[integrations.slack]\nenabled = false\nbot_token = "xoxb-kept-inline"\nsigning_secret_env = "SLACK_SIGNING_SECRET"\n';
    const draft = draftConfigChange(base, [
      { path: "integrations.slack.enabled", value: true },
      { path: "integrations.slack.bot_token", value: null },
      { path: "integrations.slack.bot_token_env", value: "SLACK_BOT_TOKEN" },
    ]);
    expect(draft.secrets).toEqual(["SLACK_BOT_TOKEN"]);
    expect(draft.diff).not.toContain("xoxb-kept-inline");
    expect(draft.diff).toContain('-bot_token = "••••••" (hidden)');
    expect(draft.diff).toContain('+bot_token_env = "SLACK_BOT_TOKEN"');
  });

  it("hides a secret in the diff's context lines whatever its layout: an inline table, a dotted or quoted key", () => {
    const base =
      '[providers]\nopenrouter = { base_url = "https://openrouter.ai/api/v1", api_key = "sk-or-inline-0123456789" }\n\n' +
      '[integrations]\nslack.enabled = false\nslack.bot_token = "xoxb-dotted-0123456789"\n' +
      '"slack"."signing_secret" = "quoted-signing-secret"\n\n' +
      "[limits]\nmax_message_bytes = 65536\n";
    const draft = draftConfigChange(base, [{ path: "limits.max_message_bytes", value: 131072 }]);
    // The change's three context lines reach the integrations: none of their values shows.
    expect(draft.diff).toContain("+max_message_bytes = 131072");
    for (const secret of ["sk-or-inline-0123456789", "xoxb-dotted-0123456789", "quoted-signing-secret"])
      expect(draft.diff).not.toContain(secret);
  });

  it("refuses a key the file's layout holds where a line edit cannot reach it, and a change that changes nothing", () => {
    const inline = '[integrations]\ngithub = { base_url = "https://api.github.com" }\n';
    expect(
      refusal(() => draftConfigChange(inline, [{ path: "integrations.github.timeout_ms", value: 5000 }])),
    ).toMatch(/^integrations\.github\.timeout_ms: cannot be written into ironclawd\.toml as it is laid out/);
    expect(parse(inline)).toEqual({ integrations: { github: { base_url: "https://api.github.com" } } });
    expect(
      refusal(() => draftConfigChange("[server]\nport = 8080\n", [{ path: "server.port", value: 8080 }])),
    ).toBe("changes: change nothing: every key already has that value");
    expect(
      refusal(() =>
        draftConfigChange(starter, [
          { path: "server.port", value: 8080 },
          { path: "server.port", value: 8081 },
        ]),
      ),
    ).toBe("changes[1].path: changes server.port a second time");
  });
});
