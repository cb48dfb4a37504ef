import { existsSync } from "node:fs";
import {
  type AgentProfile,
  agentProfileSchema,
  type IrowclawConfig,
  irowclawConfigSchema,
} from "../contracts/index.js";
import { loadTomlConfig } from "../core/index.js";
import { BRAIN_PATHS, type BrainLayout } from "./brain-layout.js";
import { DEFAULT_RETRIEVAL, type RetrievalSettings } from "./search/index.js";

/** What memory needs from the brain's config: `[indexing]`, `[providers]` and the agent's `[retrieval]`. */
export interface MemorySettings {
  indexing: IrowclawConfig["indexing"];
  providers: IrowclawConfig["providers"];
  retrieval: RetrievalSettings;
  /** The agent whose profile supplied the retrieval settings, if any. */
  agent?: string;
}

/**
 * Reads `config/irowclaw.toml` and the agent's profile `config/agents/<agent>.toml` (default: the config's
 * `default_agent`). Missing files mean defaults; an invalid file is a ConfigError naming file, line and key.
 */
export function loadMemorySettings(brain: BrainLayout, agent?: string): MemorySettings {
  const configFile = brain.resolve(BRAIN_PATHS.irowclawConfig);
  const config = existsSync(configFile) ? loadTomlConfig(configFile, irowclawConfigSchema) : undefined;
  const indexing = config?.indexing ?? irowclawConfigSchema.shape.indexing.parse(undefined);
  const name = agent ?? config?.default_agent;
  let profile: AgentProfile | undefined;
  if (name !== undefined) {
    const profileFile = brain.resolve(`${BRAIN_PATHS.agents}/${name}.toml`, "agent");
    if (existsSync(profileFile)) profile = loadTomlConfig(profileFile, agentProfileSchema);
  }
  return {
    indexing,
    providers: config?.providers ?? {},
    retrieval: retrievalFromProfile(profile),
    ...(name === undefined ? {} : { agent: name }),
  };
}

/** An agent's `[retrieval]` overrides on top of the defaults (seed 003 §6.3's weights, the measured rest). */
export function retrievalFromProfile(
  profile: Pick<AgentProfile, "retrieval"> | undefined,
): RetrievalSettings {
  const r = profile?.retrieval;
  const d = DEFAULT_RETRIEVAL;
  return {
    semanticWeight: r?.semantic_weight ?? d.semanticWeight,
    lexicalWeight: r?.lexical_weight ?? d.lexicalWeight,
    topK: r?.top_k ?? d.topK,
    fusion: r?.fusion ?? d.fusion,
    decay: r?.decay ?? d.decay,
    halfLifeDays: r?.half_life_days ?? d.halfLifeDays,
    decayFloor: r?.decay_floor ?? d.decayFloor,
    mmr: r?.mmr ?? d.mmr,
    mmrLambda: r?.mmr_lambda ?? d.mmrLambda,
    minScore: r?.min_score ?? d.minScore,
  };
}
