import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHostConfig, probeBwrap } from "../../src/cells/index.js";
import { readHostEnv } from "../../src/warden/index.js";
import { cliEntry } from "../support/cli-entry.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { startServeProcess } from "../support/serve-process.js";
import { startTelegramServer, type TelegramServer } from "../support/telegram-server.js";
import { startTerminalSession } from "../support/terminal-session.js";
import { api } from "../support/warden-harness.js";
import { REPO_ROOT, runIronclaw } from "./run-cli.js";

// From a fresh IRONCLAW_HOME to a first answer: `ironclaw setup` answered on a real pseudo-terminal (and again with
// --yes and flags), then `ironclaw serve` on what it wrote, asked through its OpenAI-compatible endpoint. The local
// model server stands in for the provider, the Telegram stand-in for the Bot API.

let model: ModelServer;
let telegram: TelegramServer;
let backend = "process";
const root = mkdtempSync(join(tmpdir(), "ironclaw-setup-journey-"));
const daemons: ChildProcess[] = [];
beforeAll(async () => {
  [model, telegram] = await Promise.all([startModelServer(), startTelegramServer()]);
  backend = (await probeBwrap()).usable ? "bwrap" : "process";
});
afterAll(async () => {
  for (const daemon of daemons) daemon.kill("SIGKILL");
  await Promise.all([model?.close(), telegram?.close()]);
  rmSync(root, { recursive: true, force: true });
});

/** `ironclaw serve` on the home, and one question through /v1/chat/completions with the user's token. */
async function firstAnswer(home: string, token: string): Promise<string> {
  const { child, url } = await startServeProcess(home);
  daemons.push(child);
  model.enqueue(reply.text("Hello from your own agent."));
  const response = await api(url, token)("POST", "/v1/chat/completions", {
    model: "assistant",
    messages: [{ role: "user", content: "Hello?" }],
  });
  const body = (await response.json()) as { choices?: Array<{ message: { content: string } }> };
  child.kill("SIGTERM");
  return body.choices?.[0]?.message.content ?? JSON.stringify(body);
}

describe("ironclaw setup, end to end", () => {
  it("on a terminal: answers typed at each prompt, the key hidden, then the warden answers and the QR's code pairs", async () => {
    const home = join(root, "terminal");
    const t = startTerminalSession(
      [process.execPath, ...cliEntry(), "setup", "--telegram-api-url", telegram.url],
      { ...process.env, IRONCLAW_HOME: home, USER: "root", IRONCLAW_LOG: "warn", TELEGRAM_BOT_TOKEN: "" },
      REPO_ROOT,
    );
    await t.expect(/Model provider \(openrouter, openai, anthropic, local, custom\) \[\w+\]: /);
    t.type("local\r");
    await t.expect(/Base URL of its OpenAI-compatible API \[http:\/\/127\.0\.0\.1:\d+\/v1\]: /);
    t.type(`${model.url}\r`);
    await t.expect(/holding its key, if it takes one \[skip\]: /);
    t.type("\r");
    await t.expect(/It lists 1 model\(s\): test-model/);
    await t.expect(/Model of each user's personal agent \[test-model\]: /);
    model.enqueue(reply.text("ready"));
    t.type("\r");
    await t.expect(/Model command plans with \(skip: the same\) \[skip\]: /);
    t.type("skip\r");
    await t.expect(/ok: test-model answered\./);
    await t.expect(/Name of the first user \(an admin\) \[admin\]: /);
    t.type("no spaces\r");
    await t.expect(/must be 1-64 letters, digits, - or _/);
    t.type("alice\r");
    await t.expect(/Checking what this host can run cells in/);
    await t.expect(/auto would pick: /);
    await t.expect(/Cell backend \(auto, microvm, bwrap, process\) \[auto\]: /, 90_000);
    t.type(`${backend}\r`);
    await t.expect(/Link a Telegram bot \(made with @BotFather\)\? \[y\/N\]: /);
    t.type("y\r");
    await t.expect(/holding the bot's token \[TELEGRAM_BOT_TOKEN\]: /);
    t.type("\r");
    await t.expect(/The bot's token \(not shown\): /);
    t.type("123456:SECRET-TOKEN\r");
    await t.expect(/ok: the bot is @ironclaw_test_bot/);
    await t.expect(/Telegram reaches this warden at \(skip if none yet\) \[skip\]: /);
    t.type("\r");
    await t.expect(/Install the systemd service \(ironclaw service install\)\? \[y\/N\]: /);
    t.type("n\r");
    const token = (await t.expect(/API token \(shown once.*\r?\n\s+(ick_\S+)/))[1] ?? "";
    const code = (await t.expect(/https:\/\/t\.me\/ironclaw_test_bot\?start=([A-Z0-9]+)/))[1] ?? "";
    expect(await t.exited).toBe(0);
    // The token typed at the hidden prompt never reached the screen.
    expect(t.output()).not.toContain("SECRET-TOKEN");
    // The QR code was drawn above the link.
    expect(t.output()).toMatch(/[▀▄█]{20,}[\s\S]*https:\/\/t\.me\/ironclaw_test_bot\?start=/);

    const config = loadHostConfig(home);
    expect(config.providers.local).toEqual({ base_url: model.url, models: [] });
    expect(config.new_brains).toMatchObject({ provider: "local", model: "test-model" });
    expect(config.cells.backend).toBe(backend);
    expect(config.integrations.telegram).toMatchObject({
      token_env: "TELEGRAM_BOT_TOKEN",
      secret_token_env: "TELEGRAM_WEBHOOK_SECRET",
      api_base_url: telegram.url,
    });
    const toml = readFileSync(join(home, "ironclawd.toml"), "utf8");
    expect(toml).not.toContain("SECRET-TOKEN");
    expect(toml).toMatch(/^# The TCP port of the HTTP API/m);
    const env = readHostEnv(home);
    expect(env.TELEGRAM_BOT_TOKEN).toBe("123456:SECRET-TOKEN");
    expect(env.TELEGRAM_WEBHOOK_SECRET).toMatch(/^[\w-]{32}$/);
    expect(statSync(join(home, "ironclawd.env")).mode & 0o777).toBe(0o600);

    const { child, url } = await startServeProcess(home);
    daemons.push(child);
    model.enqueue(reply.text("Hello, Alice."));
    const response = await api(url, token)("POST", "/v1/chat/completions", {
      model: "assistant",
      messages: [{ role: "user", content: "Hello?" }],
    });
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toBe("Hello, Alice.");

    // The code under the QR pairs a Telegram chat with alice, through the webhook and the secret setup made.
    const update = {
      update_id: 1,
      message: {
        message_id: 1,
        date: 1,
        text: `/start ${code}`,
        chat: { id: 777, type: "private" },
        from: { id: 777, is_bot: false, first_name: "Alice" },
      },
    };
    const sent = await fetch(`${url}/channels/telegram/default`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-telegram-bot-api-secret-token": env.TELEGRAM_WEBHOOK_SECRET ?? "",
      },
      body: JSON.stringify(update),
    });
    expect(sent.status).toBe(200);
    const linked = () => {
      const db = new Database(join(home, "host.db"), { readonly: true });
      try {
        return db
          .prepare("SELECT user_id FROM channel_links WHERE kind = 'telegram' AND sender_id = '777'")
          .get();
      } finally {
        db.close();
      }
    };
    await expect.poll(linked, { timeout: 20_000 }).toEqual({ user_id: "alice" });
    child.kill("SIGTERM");
  }, 240_000);

  it("with --yes and flags: the key piped on stdin reaches the provider through the warden, from the env file", async () => {
    const home = join(root, "scripted");
    model.enqueue(reply.text("ready"));
    const done = await runIronclaw(
      [
        ...[
          "setup",
          "--yes",
          "--provider",
          "custom",
          "--base-url",
          model.url,
          "--api-key-env",
          "GATEWAY_KEY",
        ],
        ...["--key-stdin", "--model", "test-model", "--user", "bob", "--backend", backend, "--no-service"],
      ],
      { stdin: "sk-gateway-42\n", env: { IRONCLAW_HOME: home } },
    );
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    const token = /\n {2}(ick_\S+)/.exec(done.stdout)?.[1] ?? "";
    model.reset();
    expect(await firstAnswer(home, token)).toBe("Hello from your own agent.");
    // `serve` had no GATEWAY_KEY in its environment: the warden read it from IRONCLAW_HOME/ironclawd.env.
    const call = model.requests.find((r) => r.path.endsWith("/chat/completions"));
    expect(call?.headers.authorization).toBe("Bearer sk-gateway-42");
  }, 180_000);
});
