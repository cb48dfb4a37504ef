import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { uncommentDefaults } from "../../test/support/toml-uncomment.js";
import { agentProfileSchema, irowclawConfigSchema } from "../contracts/index.js";
import { missingTemplateKeys, parseTomlConfig, undescribedKeys } from "../core/index.js";
import { loadMemorySettings, retrievalFromProfile } from "./brain-config.js";
import { BRAIN_PATHS } from "./brain-layout.js";
import { initBrain, starterProfile, starterRuntimeConfig } from "./brain-starter.js";
import { DEFAULT_RETRIEVAL } from "./search/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function newBrain(options: Parameters<typeof initBrain>[1] = {}) {
  const dir = mkdtempSync(join(tmpdir(), "ironclaw-starter-"));
  dirs.push(dir);
  const { brain } = await initBrain(join(dir, "brain"), options);
  const read = (path: string) => readFileSync(brain.resolve(path), "utf8");
  return { brain, read };
}

const OPENROUTER = { base_url: "https://openrouter.ai/api/v1", api_key_env: "OPENROUTER_API_KEY" };

describe("a new brain's irowclaw.toml", () => {
  it("shows every key of the schema, described", () => {
    expect(missingTemplateKeys(irowclawConfigSchema, starterRuntimeConfig("assistant"))).toEqual([]);
    expect(undescribedKeys(irowclawConfigSchema)).toEqual([]);
  });

  it("reads back as its agent, OpenRouter and the local embedder, everything else at the defaults", async () => {
    const { brain } = await newBrain();
    const text = readFileSync(brain.resolve(BRAIN_PATHS.irowclawConfig), "utf8");
    const expected = irowclawConfigSchema.parse({
      default_agent: "assistant",
      providers: { openrouter: OPENROUTER },
    });
    expect(parseTomlConfig(text, irowclawConfigSchema)).toEqual(expected);
    const settings = loadMemorySettings(brain);
    expect(settings.indexing).toEqual(irowclawConfigSchema.shape.indexing.parse(undefined));
    expect(settings.retrieval).toEqual(DEFAULT_RETRIEVAL);
  });

  it("sets the provider embedder it was asked for", async () => {
    const { brain } = await newBrain({ embedding: { provider: "local", model: "embed-1" } });
    expect(loadMemorySettings(brain).indexing).toEqual({
      chunk_max_bytes: 2048,
      embedder: "provider",
      embedding_provider: "local",
      embedding_model: "embed-1",
      watch_debounce_ms: 500,
    });
  });

  it("shows true defaults: with every default uncommented it reads back the same", () => {
    const text = starterRuntimeConfig("assistant");
    const uncommented = uncommentDefaults(irowclawConfigSchema, text);
    expect(uncommented).toMatch(/^\[promotion\]\n#.*\nenabled = true$/m);
    expect(parseTomlConfig(uncommented, irowclawConfigSchema)).toEqual(
      parseTomlConfig(text, irowclawConfigSchema),
    );
  });
});

describe("a new brain's agent profile", () => {
  const text = starterProfile("assistant", "openrouter", "m/1");

  it("shows every key of the schema, described", () => {
    expect(missingTemplateKeys(agentProfileSchema, text)).toEqual([]);
    expect(undescribedKeys(agentProfileSchema)).toEqual([]);
  });

  it("would name a key it lost", () => {
    expect(missingTemplateKeys(agentProfileSchema, text.replace(/^# mmr_lambda = .*$/m, ""))).toEqual([
      "retrieval.mmr_lambda",
    ]);
  });

  it("reads back as its name, provider, model and seed 003's retrieval weights", async () => {
    const { read } = await newBrain({ provider: "local", model: "llama3.1" });
    expect(parseTomlConfig(read(`${BRAIN_PATHS.agents}/assistant.toml`), agentProfileSchema)).toEqual({
      name: "assistant",
      provider: "local",
      model: "llama3.1",
      retrieval: { semantic_weight: 0.7, lexical_weight: 0.3, top_k: 8 },
    });
  });

  it("shows the ranking memory search uses when a key is absent", () => {
    const uncommented = parseTomlConfig(uncommentDefaults(agentProfileSchema, text), agentProfileSchema);
    expect(uncommented.retrieval).toEqual({
      semantic_weight: 0.7,
      lexical_weight: 0.3,
      top_k: 8,
      fusion: "calibrated",
      decay: true,
      half_life_days: 90,
      decay_floor: 0.8,
      mmr: true,
      mmr_lambda: 0.8,
      min_score: 0.23,
    });
    expect(retrievalFromProfile(uncommented)).toEqual(
      retrievalFromProfile(parseTomlConfig(text, agentProfileSchema)),
    );
  });

  it("shows the brain's [agent] limits as what applies when the profile sets none", () => {
    const limits = irowclawConfigSchema.parse({ default_agent: "a" }).agent;
    for (const [key, value] of Object.entries(limits)) expect(text).toContain(`\n# ${key} = ${value}\n`);
  });
});
