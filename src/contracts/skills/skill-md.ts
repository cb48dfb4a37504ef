import { parseDocument } from "yaml";
import { type Issue, ValidationError } from "../../core/index.js";
import { isJsonObject } from "../common.js";
import { checkValue, defineContract } from "../registry.js";
import { type SkillFrontmatter, skillFrontmatterSchema } from "./skill-frontmatter.js";

export const SKILL_MD_KIND = "skill-md";

export interface SkillMd {
  frontmatter: SkillFrontmatter;
  /** The Markdown after the frontmatter: instructions the agent reads on demand, treated as data. */
  body: string;
}

/**
 * Splits a SKILL.md into its YAML frontmatter (between a first line `---` and the next line `---`) and its body.
 * A byte-order mark and CRLF line ends are accepted, as editors on every platform write them.
 */
export function splitSkillMd(text: string): { yaml: string; body: string } | { issues: Issue[] } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---")
    return {
      issues: [issue("$", "missing_frontmatter", "must start with a line --- opening the YAML frontmatter")],
    };
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (end < 0)
    return { issues: [issue("$", "missing_frontmatter", "the YAML frontmatter has no closing --- line")] };
  return { yaml: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n") };
}

/** The frontmatter as a plain value, or why it is not a YAML mapping. */
export function decodeSkillFrontmatter(text: string): { value: unknown } | { issues: Issue[] } {
  const split = splitSkillMd(text);
  if ("issues" in split) return split;
  // YAML 1.2 core schema: no timestamps or custom types, so a frontmatter decodes to JSON values only.
  const doc = parseDocument(split.yaml, { schema: "core", uniqueKeys: true, prettyErrors: false });
  const [first] = doc.errors;
  if (first)
    return { issues: [issue("$", "invalid_yaml", `the frontmatter is not valid YAML: ${first.message}`)] };
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (!isJsonObject(value))
    return {
      issues: [
        issue("$", "invalid_type", "the frontmatter must be a YAML mapping (name: …, description: …)"),
      ],
    };
  return { value };
}

/**
 * Reads a SKILL.md whose folder is `folderName`. Throws a ValidationError listing every problem by field path
 * and rule (`$.name: must equal the skill's folder name …`); unknown keys are kept in `frontmatter`.
 */
export function parseSkillMd(text: string, folderName: string): SkillMd {
  const split = splitSkillMd(text);
  if ("issues" in split) throw new ValidationError(SKILL_MD_KIND, split.issues);
  const decoded = decodeSkillFrontmatter(text);
  if ("issues" in decoded) throw new ValidationError(SKILL_MD_KIND, decoded.issues);
  const result = checkValue(skillMdContract, decoded.value);
  const issues = result.ok ? [] : [...result.issues];
  const name = (decoded.value as { name?: unknown }).name;
  if (typeof name === "string" && name !== folderName)
    issues.push(
      issue("$.name", "name_mismatch", `must equal the skill's folder name (${JSON.stringify(folderName)})`),
    );
  if (!result.ok || issues.length > 0) throw new ValidationError(SKILL_MD_KIND, issues);
  return { frontmatter: result.value, body: split.body };
}

function issue(path: string, code: string, message: string): Issue {
  return { path, code, message };
}

export const skillMdContract = defineContract({
  kind: SKILL_MD_KIND,
  seed: "003",
  title: "Skill (SKILL.md)",
  description:
    "A skill's SKILL.md in the AgentSkills format: YAML frontmatter (name, description, optional license, " +
    "compatibility, allowed-tools, metadata with metadata.openclaw requirements and metadata.ironclaw egress " +
    "declarations) followed by Markdown instructions. The name must also equal the skill's folder name.",
  format: "text",
  schema: skillFrontmatterSchema,
  decodeText: decodeSkillFrontmatter,
});
