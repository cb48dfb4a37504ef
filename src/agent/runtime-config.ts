import { readdirSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentProfile,
  agentProfileSchema,
  type IrowclawConfig,
  irowclawConfigSchema,
  TOOL_KINDS,
  type ToolKind,
} from "../contracts/index.js";
import { ConfigError, loadTomlConfig } from "../core/index.js";
import { BRAIN_PATHS, type BrainLayout } from "../memory/index.js";

export interface LoadedProfile {
  profile: AgentProfile;
  /** Brain-relative file it came from, for error messages. */
  file: string;
}

/** A brain's runtime configuration: `config/irowclaw.toml` and every profile in `config/agents/*.toml`. */
export interface RuntimeConfig {
  config: IrowclawConfig;
  profiles: Map<string, LoadedProfile>;
}

/**
 * Loads and validates the brain's config and agent profiles. Every problem is a ConfigError naming the file,
 * line and key; a default agent without a profile and two profiles with one name are refused here, before any
 * turn runs, rather than when the first message arrives.
 */
export function loadRuntimeConfig(brain: BrainLayout): RuntimeConfig {
  const configPath = brain.resolve(BRAIN_PATHS.irowclawConfig);
  const config = loadTomlConfig(configPath, irowclawConfigSchema);
  const profiles = new Map<string, LoadedProfile>();
  let names: string[] = [];
  try {
    names = readdirSync(brain.resolve(BRAIN_PATHS.agents))
      .filter((n) => n.endsWith(".toml"))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  for (const name of names) {
    const file = `${BRAIN_PATHS.agents}/${name}`;
    const profile = loadTomlConfig(brain.resolve(file), agentProfileSchema);
    const clash = profiles.get(profile.name);
    if (clash) {
      throw new ConfigError(join(brain.root, file), [
        { key: "name", rule: `${profile.name} is already the name of ${clash.file}` },
      ]);
    }
    profiles.set(profile.name, { profile, file });
  }
  if (!profiles.has(config.default_agent)) {
    throw new ConfigError(configPath, [
      {
        key: "default_agent",
        rule: `names ${config.default_agent}, but no profile in ${BRAIN_PATHS.agents}/ has that name (found: ${
          [...profiles.keys()].join(", ") || "none"
        })`,
      },
    ]);
  }
  return { config, profiles };
}

/** The profile of `name`, or the default agent's. */
export function selectProfile(runtime: RuntimeConfig, name?: string): AgentProfile {
  const wanted = name ?? runtime.config.default_agent;
  const found = runtime.profiles.get(wanted);
  if (!found) {
    throw new ConfigError(BRAIN_PATHS.agents, [
      {
        key: "name",
        rule: `no agent profile named ${wanted} (known: ${[...runtime.profiles.keys()].join(", ")})`,
      },
    ]);
  }
  return found.profile;
}

/** The tools an agent may use: irowclaw.toml's allow list is the ceiling, a profile's list can only narrow it. */
export function allowedTools(config: IrowclawConfig, profile: AgentProfile): ToolKind[] {
  const ceiling = new Set<ToolKind>(config.tools.allow);
  const wanted = profile.tools?.allow ?? TOOL_KINDS;
  return wanted.filter((t) => ceiling.has(t));
}
