import type { SkillEgressDeclaration } from "./skill-egress.js";
import type { SkillFrontmatter } from "./skill-frontmatter.js";

/** What a skill needs from the cell it runs in, read from `metadata.openclaw` (OpenClaw's own keys). */
export interface SkillRequirements {
  /** Variables the skill reads; inside a cell each holds a placeholder, never the secret. */
  env: string[];
  /** Programs that must all be on the cell image's PATH. */
  bins: string[];
  /** Programs of which at least one must be on the cell image's PATH. */
  anyBins: string[];
  /** The variable holding the skill's main credential, when it names one. */
  primaryEnv?: string;
  /** Operating systems the skill supports (darwin, linux, win32); absent means any. */
  os?: string[];
}

export function skillRequirements(frontmatter: SkillFrontmatter): SkillRequirements {
  const openclaw = frontmatter.metadata?.openclaw;
  const requires = openclaw?.requires;
  const os = openclaw?.os;
  return {
    env: unique(requires?.env ?? []),
    bins: unique(requires?.bins ?? []),
    anyBins: unique(requires?.anyBins ?? []),
    ...(openclaw?.primaryEnv === undefined ? {} : { primaryEnv: openclaw.primaryEnv }),
    ...(os === undefined ? {} : { os: typeof os === "string" ? [os] : unique(os) }),
  };
}

/** The hosts, headers and formats a skill's secrets may be sent to (`metadata.ironclaw.egress`). */
export function skillEgress(frontmatter: SkillFrontmatter): SkillEgressDeclaration[] {
  return frontmatter.metadata?.ironclaw?.egress ?? [];
}

/** `allowed-tools` as a list, whether written as AgentSkills' space-separated string or as a list. */
export function skillAllowedTools(frontmatter: SkillFrontmatter): string[] {
  const tools = frontmatter["allowed-tools"];
  if (tools === undefined) return [];
  return unique(typeof tools === "string" ? tools.split(/\s+/).filter((t) => t !== "") : tools);
}

/**
 * The host-side installers a skill declares (`metadata.openclaw.install`: brew, node, go, uv, download), each
 * summarised in one line. IronClaw never runs them; they are shown so the person approving sees what is ignored.
 */
export function skillInstallSpecs(frontmatter: SkillFrontmatter): string[] {
  const install = frontmatter.metadata?.openclaw?.install;
  if (install === undefined) return [];
  const entries = Array.isArray(install) ? install : [install];
  return entries.map(describeInstall);
}

function describeInstall(entry: unknown): string {
  if (typeof entry !== "object" || entry === null) return JSON.stringify(entry) ?? String(entry);
  const e = entry as Record<string, unknown>;
  const what = [e.formula, e.cask, e.package, e.module, e.url].find((v) => typeof v === "string");
  const kind = typeof e.kind === "string" ? e.kind : "install";
  return what === undefined ? `${kind} ${JSON.stringify(entry)}` : `${kind} ${what}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
