import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempBrain, type TempBrain } from "../../../test/support/memory-fixtures.js";
import { ConfigError, InvalidInputError } from "../../core/index.js";
import { loadMemorySettings, retrievalFromProfile } from "../brain-config.js";
import { checkSettings, DEFAULT_RETRIEVAL, type RetrievalSettings } from "./retrieval-settings.js";

let temp: TempBrain;
const PROFILE = 'name = "journal"\nprovider = "local"\nmodel = "m"\n';

beforeAll(async () => {
  temp = await makeTempBrain({
    "config/irowclaw.toml": 'default_agent = "journal"\n',
    "config/agents/journal.toml": `${PROFILE}\n[retrieval]\ntop_k = 12\nhalf_life_days = 30\ndecay_floor = 0.6\nmmr = false\nmmr_lambda = 0.9\nmin_score = 0.1\nfusion = "rrf"\n`,
    "config/agents/plain.toml": PROFILE.replace("journal", "plain"),
    "config/agents/broken.toml": `${PROFILE.replace("journal", "broken")}\n[retrieval]\nhalf_life_days = -3\n`,
  });
});
afterAll(() => temp.cleanup());

describe("retrieval settings", () => {
  it("reads an agent's [retrieval] table over the defaults", () => {
    expect(loadMemorySettings(temp.brain).retrieval).toEqual({
      ...DEFAULT_RETRIEVAL,
      topK: 12,
      halfLifeDays: 30,
      decayFloor: 0.6,
      mmr: false,
      mmrLambda: 0.9,
      minScore: 0.1,
      fusion: "rrf",
    });
    expect(loadMemorySettings(temp.brain, "plain").retrieval).toEqual(DEFAULT_RETRIEVAL);
    expect(retrievalFromProfile(undefined)).toEqual(DEFAULT_RETRIEVAL);
  });

  it("refuses a bad [retrieval] value with the file, key and rule", () => {
    let error: unknown;
    try {
      loadMemorySettings(temp.brain, "broken");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as Error).message)).toMatch(/broken\.toml/);
    expect(String((error as Error).message)).toMatch(/retrieval\.half_life_days.*above 0/);
  });

  it.each<[Partial<RetrievalSettings>, RegExp]>([
    [{ halfLifeDays: 0 }, /^halfLifeDays: must be a number of days above 0/],
    [{ halfLifeDays: Number.POSITIVE_INFINITY }, /^halfLifeDays/],
    [{ decayFloor: 1.5 }, /^decayFloor: must be between 0 and 1/],
    [{ mmrLambda: -0.1 }, /^mmrLambda: must be between 0 and 1/],
    [{ minScore: Number.NaN }, /^minScore: must be between 0 and 1/],
    [{ fusion: "max" as never }, /^fusion: must be one of calibrated, rrf, relative/],
    [{ decay: "yes" as never }, /^decay: must be true or false/],
    [{ mmr: 1 as never }, /^mmr: must be true or false/],
    [{ topK: 0 }, /^topK/],
    [{ semanticWeight: 0, lexicalWeight: 0 }, /both be 0/],
  ])("refuses %j, naming the field and the rule", (bad, message) => {
    expect(() => checkSettings({ ...DEFAULT_RETRIEVAL, ...bad })).toThrow(InvalidInputError);
    expect(() => checkSettings({ ...DEFAULT_RETRIEVAL, ...bad })).toThrow(message);
  });
});
