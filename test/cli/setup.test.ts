import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadHostConfig } from "../../src/cells/index.js";
import { readHostEnv } from "../../src/warden/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { runIronclawInProcess } from "./run-cli.js";

// `ironclaw setup` for scripts: --yes and flags. The wizard on a real terminal, and the warden it sets up
// answering, are test/cli/setup-journey.test.ts.

let model: ModelServer;
const root = mkdtempSync(join(tmpdir(), "ironclaw-setup-"));
let n = 0;
let home = "";
beforeAll(async () => {
  model = await startModelServer();
});
beforeEach(() => {
  home = join(root, `home-${++n}`);
  model.reset();
});
afterAll(async () => {
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

const setup = (args: string[], stdin?: string) =>
  runIronclawInProcess(["setup", "--yes", "--no-service", "--backend", "process", ...args], {
    // USER decides the default user's name (root's is "admin").
    env: { IRONCLAW_HOME: home, USER: "root" },
    ...(stdin === undefined ? {} : { stdin }),
  });

describe("ironclaw setup --yes", () => {
  it("writes the provider with its key's variable only, the key into the 0600 env file, and the first admin", async () => {
    model.enqueue(reply.text("ready"));
    const done = await setup(
      ["--provider", "custom", "--base-url", model.url, "--api-key-env", "LOCAL_KEY", "--key-stdin"],
      "sk-test-123\n",
    );
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    // The one test call carried the key and asked for one token of the model the server lists.
    expect(model.requests.find((r) => r.path.endsWith("/chat/completions"))?.headers.authorization).toBe(
      "Bearer sk-test-123",
    );
    expect(model.chatRequests()[0]).toMatchObject({ model: "test-model", max_tokens: 1 });
    const config = loadHostConfig(home);
    expect(config.providers.custom).toEqual({ base_url: model.url, api_key_env: "LOCAL_KEY", models: [] });
    expect(config.new_brains).toMatchObject({ provider: "custom", model: "test-model" });
    expect(config.cells.backend).toBe("process");
    expect(readFileSync(join(home, "ironclawd.toml"), "utf8")).not.toContain("sk-test-123");
    expect(readHostEnv(home)).toEqual({ LOCAL_KEY: "sk-test-123" });
    expect(statSync(join(home, "ironclawd.env")).mode & 0o777).toBe(0o600);
    expect(done.stdout).toMatch(/Added admin user admin; API token .*\n {2}ick_\S+/);
    expect(done.stdout).not.toContain("sk-test-123");
  });

  it("stops before writing anything when the test call fails, saying what failed", async () => {
    model.enqueue(reply.status(401, "invalid key"));
    const failed = await setup(
      [
        "--provider",
        "custom",
        "--base-url",
        model.url,
        "--api-key-env",
        "LOCAL_KEY",
        "--key-stdin",
        "--user",
        "ada",
      ],
      "sk-wrong\n",
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      "the test call failed: the server refused the key in LOCAL_KEY (HTTP 401). Nothing was written",
    );
    expect(existsSync(home)).toBe(false);
  });

  it("refuses a bad flag naming it and its rule, before touching anything", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["--base-url", "ftp://x"], /^ironclaw setup: --base-url: must be an http\(s\) URL/],
      [["--user", "no spaces"], /^ironclaw setup: --user: must be 1-64 letters, digits, - or _/],
      [["--api-key-env", "my-key"], /^ironclaw setup: --api-key-env: must name an environment variable/],
      [["--provider", "bedrock"], /^ironclaw setup: --provider: must be one of openrouter, openai/],
      [["--service"], /^ironclaw setup: --service: give --service or --no-service, not both/],
    ];
    for (const [flags, message] of cases) {
      const refused = await setup(flags);
      expect(refused.code, flags.join(" ")).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
    expect(existsSync(home)).toBe(false);
  });

  it("asks on a terminal only: without one and without --yes it says what to give", async () => {
    const refused = await runIronclawInProcess(["setup"], { env: { IRONCLAW_HOME: home } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("give --yes and the flags it needs");
  });

  it("run again, keeps every setting of the home as its default and backs the old file up", async () => {
    mkdirSync(home, { recursive: true });
    const before = `[server]
port = 7500

[providers.local]
base_url = "${model.url}"
models = ["test-model"]

[new_brains]
provider = "local"
model = "test-model"

[budgets]
alert_percent = [70, 95]
`;
    writeFileSync(join(home, "ironclawd.toml"), before);
    model.enqueue(reply.text("ready"));
    const again = await setup(["--user", "ada"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Base URL of its OpenAI-compatible API: ${model.url}`);
    const config = loadHostConfig(home);
    expect(config.server.port).toBe(7500);
    expect(config.budgets.alert_percent).toEqual([70, 95]);
    expect(config.providers.local).toEqual({ base_url: model.url, models: ["test-model"] });
    expect(config.new_brains).toMatchObject({ provider: "local", model: "test-model" });
    const backup = readdirSync(home).find((f) => f.startsWith("ironclawd.toml.bak-"));
    expect(readFileSync(join(home, backup ?? "missing"), "utf8")).toBe(before);

    // A third run with no new user: the one there stays, nothing is asked of it.
    model.enqueue(reply.text("ready"));
    const third = await setup([]);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain("users already: ada");
    expect(loadHostConfig(home)).toEqual(config);
  });
});
