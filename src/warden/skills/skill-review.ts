import { lstat } from "node:fs/promises";
import { resolve } from "node:path";
import {
  parseSkillMd,
  type SkillEgressDeclaration,
  type SkillFrontmatter,
  type SkillRequirements,
  skillAllowedTools,
  skillEgress,
  skillInstallSpecs,
  skillRequirements,
} from "../../contracts/index.js";
import { sha256Hex, ValidationError } from "../../core/index.js";
import { isArchiveName, readSkillArchive } from "./skill-archive.js";
import { readSkillFolder, type SkillFile } from "./skill-folder.js";
import { SKILL_LIMITS, type SkillLimits, SkillRefusal } from "./skill-refusal.js";

/** One `metadata.ironclaw.egress` declaration, without the keys IronClaw does not read. */
export type SkillHostAsk = Pick<
  SkillEgressDeclaration,
  "host" | "header" | "format" | "secret" | "methods" | "paths"
>;

/** What a skill asks for, as the person approving it sees it and as skills.lock records it. */
export interface SkillAsks {
  /** Where the warden may put a secret: exact host, header and format, optionally only these methods and paths. */
  hosts: SkillHostAsk[];
  /** Secrets of the user the skill uses: those it sends to hosts and the variables it requires. */
  secrets: string[];
  /** Variables the skill declares (`requires.env`, `primaryEnv`); a cell is given these names only. */
  env: string[];
  bins: string[];
  anyBins: string[];
  allowedTools: string[];
  os?: string[];
  /** Installers the skill declares for its host, each with why it is not run. */
  ignoredInstall: string[];
}

export interface SkillReview {
  name: string;
  description: string;
  /** sha256 over the skill's files: of the lines `<sha256 of file>  <path>\n`, sorted by path. */
  sha256: string;
  files: Array<{ path: string; bytes: number; sha256: string }>;
  totalBytes: number;
  asks: SkillAsks;
  requirements: SkillRequirements;
  frontmatter: SkillFrontmatter;
}

/** A review together with the bytes reviewed: what install writes is exactly what was hashed. */
export interface ReviewedSkill {
  review: SkillReview;
  contents: SkillFile[];
}

export const IGNORED_INSTALL_WHY =
  "not run: IronClaw never runs a skill's installers on the host; programs come only from the cell image";

/** Reads a skill folder or archive as hostile and reviews it; throws SkillRefusal naming the file and the reason. */
export async function reviewSource(
  source: string,
  limits: SkillLimits = SKILL_LIMITS,
): Promise<ReviewedSkill> {
  const path = resolve(source);
  const info = await lstat(path).catch(() => undefined);
  if (!info) throw new SkillRefusal("does not exist", source);
  if (info.isFile() && isArchiveName(path)) {
    const { folderName, files } = await readSkillArchive(path, limits);
    return reviewFiles(folderName, files);
  }
  const files = await readSkillFolder(path, limits);
  return reviewFiles(path.slice(path.lastIndexOf("/") + 1), files);
}

export function reviewFiles(folderName: string, files: SkillFile[]): ReviewedSkill {
  const contents = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const skillMd = contents.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw new SkillRefusal(`has no SKILL.md at its root: not a skill folder`, folderName);
  let frontmatter: SkillFrontmatter;
  try {
    frontmatter = parseSkillMd(skillMd.bytes.toString("utf8"), folderName).frontmatter;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const problems = error.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
    throw new SkillRefusal(`is not a valid skill: ${problems}`, "SKILL.md");
  }
  const listed = contents.map((f) => ({ path: f.path, bytes: f.bytes.length, sha256: sha256Hex(f.bytes) }));
  const requirements = skillRequirements(frontmatter);
  return {
    review: {
      name: frontmatter.name,
      description: frontmatter.description,
      sha256: sha256Hex(listed.map((f) => `${f.sha256}  ${f.path}\n`).join("")),
      files: listed,
      totalBytes: listed.reduce((sum, f) => sum + f.bytes, 0),
      asks: asksOf(frontmatter, requirements),
      requirements,
      frontmatter,
    },
    contents,
  };
}

function asksOf(frontmatter: SkillFrontmatter, requirements: SkillRequirements): SkillAsks {
  const hosts = skillEgress(frontmatter).map(
    (e): SkillHostAsk => ({
      host: e.host,
      header: e.header,
      format: e.format,
      secret: e.secret,
      ...(e.methods === undefined ? {} : { methods: e.methods }),
      ...(e.paths === undefined ? {} : { paths: e.paths }),
    }),
  );
  const env = unique([
    ...requirements.env,
    ...(requirements.primaryEnv === undefined ? [] : [requirements.primaryEnv]),
  ]);
  return {
    hosts,
    secrets: unique([...hosts.map((h) => h.secret), ...env]),
    env,
    bins: requirements.bins,
    anyBins: requirements.anyBins,
    allowedTools: skillAllowedTools(frontmatter),
    ...(requirements.os === undefined ? {} : { os: requirements.os }),
    ignoredInstall: skillInstallSpecs(frontmatter).map((spec) => `${spec} (${IGNORED_INSTALL_WHY})`),
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
