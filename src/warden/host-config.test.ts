import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { uncommentDefaults } from "../../test/support/toml-uncomment.js";
import { loadHostConfig } from "../cells/index.js";
import { ironclawdConfigSchema } from "../contracts/index.js";
import { missingTemplateKeys, parseTomlConfig, undescribedKeys } from "../core/index.js";
import {
  HOST_CONFIG_FILE,
  prepareHome,
  readHostConfigValues,
  starterHostConfig,
  writeHostConfig,
} from "./host-config.js";
import { DEFAULT_SUSPICIOUS_PATTERNS } from "./soul/index.js";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), "ironclaw-home-"));
  homes.push(home);
  return home;
}

describe("the ironclawd.toml a first start writes", () => {
  it("shows every key of the schema, in its table", () => {
    expect(missingTemplateKeys(ironclawdConfigSchema, starterHostConfig())).toEqual([]);
  });

  it("would name a key it lost", () => {
    const without = starterHostConfig().replace(/^# alert_percent = .*$/m, "");
    expect(missingTemplateKeys(ironclawdConfigSchema, without)).toEqual(["budgets.alert_percent"]);
  });

  it("describes every table and key", () => {
    expect(undescribedKeys(ironclawdConfigSchema)).toEqual([]);
  });

  it("is written 0600 and reads back as the config of a home without the file", () => {
    const home = freshHome();
    const { config, created } = prepareHome(home);
    const file = join(home, HOST_CONFIG_FILE);
    expect(created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe(starterHostConfig());
    expect(config).toEqual(loadHostConfig(freshHome()));
    expect(config).toEqual(ironclawdConfigSchema.parse({}));
  });

  it("takes any table pasted at its end, as the README's local-model setup does", () => {
    const pasted = `${starterHostConfig()}
[providers.local]
base_url = "http://127.0.0.1:11434/v1"

[new_brains]
provider = "local"
model = "llama3.1"

[cells]
backend = "bwrap"
`;
    const config = parseTomlConfig(pasted, ironclawdConfigSchema);
    expect(config.providers).toEqual({ local: { base_url: "http://127.0.0.1:11434/v1", models: [] } });
    expect(config.new_brains).toEqual({ provider: "local", model: "llama3.1" });
    expect(config.cells.backend).toBe("bwrap");
  });

  it("shows true defaults: with every default uncommented it reads back the same", () => {
    const uncommented = uncommentDefaults(ironclawdConfigSchema, starterHostConfig());
    expect(uncommented).toMatch(/^\[server\]\n#.*\nport = 7410$/m);
    expect(uncommented).toMatch(/^suspicious_patterns = \[\n(?: {2}".*",\n)+\]$/m);
    const defaults = ironclawdConfigSchema.parse({});
    expect(parseTomlConfig(uncommented, ironclawdConfigSchema)).toEqual({
      ...defaults,
      soul_guard: { ...defaults.soul_guard, suspicious_patterns: [...DEFAULT_SUSPICIOUS_PATTERNS] },
    });
  });
});

describe("ironclawd.toml rewritten with chosen values (ironclaw setup)", () => {
  const hand = `[server]
port = 7500
public_url = "https://claw.example.org"

[providers.local]
base_url = "http://127.0.0.1:11434/v1"
models = ["llama3.1", "qwen2.5"]

[pricing.local."llama3.1"]
input = 0
output = 0

[budgets]
alert_percent = [70, 95]
`;

  it("keeps every value the file set, sets the new ones, shows the rest commented, and backs the old file up", () => {
    const home = freshHome();
    const file = join(home, HOST_CONFIG_FILE);
    writeFileSync(file, hand, { mode: 0o600 });
    const before = parseTomlConfig(hand, ironclawdConfigSchema);
    const values = readHostConfigValues(home);
    const written = writeHostConfig(home, {
      ...values,
      new_brains: { provider: "local", model: "qwen2.5" },
    });
    const after = loadHostConfig(home);
    expect(after).toEqual({ ...before, new_brains: { provider: "local", model: "qwen2.5" } });
    expect(missingTemplateKeys(ironclawdConfigSchema, readFileSync(file, "utf8"))).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(written.backup).toBeDefined();
    expect(readFileSync(written.backup ?? "", "utf8")).toBe(hand);
    expect(statSync(written.backup ?? "").mode & 0o777).toBe(0o600);
  });

  it("refuses values the schema refuses, naming the key, and leaves the file as it was", () => {
    const home = freshHome();
    writeFileSync(join(home, HOST_CONFIG_FILE), hand);
    expect(() => writeHostConfig(home, { cells: { backend: "docker" } })).toThrow(
      /cells\.backend.*must be one of/,
    );
    expect(readFileSync(join(home, HOST_CONFIG_FILE), "utf8")).toBe(hand);
    expect(readdirSync(home)).toEqual([HOST_CONFIG_FILE]);
  });

  it("names the line of a file that is not TOML instead of overwriting it", () => {
    const home = freshHome();
    writeFileSync(join(home, HOST_CONFIG_FILE), "[server]\nport = = 1\n");
    expect(() => readHostConfigValues(home)).toThrow(/ironclawd\.toml:2: \(syntax\)/);
  });
});
