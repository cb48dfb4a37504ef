import { z } from "zod";
import { envVarName } from "../cell/index.js";
import { aString, expected } from "../common.js";
import { skillEgressSchema } from "./skill-egress.js";

/**
 * The YAML frontmatter of a skill's SKILL.md (seed 003 §16.2: the AgentSkills format). Every object is loose:
 * keys the format does not name are kept and ignored, because skills are written for several hosts at once.
 */

/** AgentSkills `name`: 1–64 of `[a-z0-9-]`, equal to the folder name (checked by `parseSkillMd`). */
export const skillName = aString()
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters")
  .regex(
    /^[a-z0-9][a-z0-9-]*$/,
    "must use only lowercase letters, digits and -, starting with a letter or digit (like pdf-tools)",
  );

/** A binary the skill needs on PATH inside the cell: a bare file name, never a path. */
const binName = aString().regex(
  /^(?!\.\.?$)[A-Za-z0-9._+-]{1,128}$/,
  "must be a program name without a path (like jq or python3)",
);

const listOf = <T extends z.ZodType>(item: T) => z.array(item, { error: expected("a list") });

/** A string or a list of strings; OpenClaw writes `os` both ways. */
const oneOrMany = z.union([aString(), listOf(aString())], {
  error: expected("a string or a list of strings"),
});

/** `metadata.openclaw`, honoured for compatibility with skills written for OpenClaw. */
export const openclawMetadataSchema = z.looseObject(
  {
    requires: z
      .looseObject(
        {
          env: listOf(envVarName).optional(),
          bins: listOf(binName).optional(),
          anyBins: listOf(binName).optional(),
          // OpenClaw reads these as keys of its own config file; IronClaw has no such file and ignores them.
          config: z.unknown().optional(),
        },
        { error: expected("a mapping") },
      )
      .optional(),
    primaryEnv: envVarName.optional(),
    os: oneOrMany.optional(),
    // Host-side installers (brew, go, download…). Never run: binaries come only from the cell image.
    install: z.unknown().optional(),
    emoji: z.unknown().optional(),
    homepage: z.unknown().optional(),
    always: z.unknown().optional(),
    skillKey: z.unknown().optional(),
  },
  { error: expected("a mapping") },
);

/** `metadata.ironclaw`: what IronClaw adds, the hosts a secret may be sent to and how. */
export const ironclawMetadataSchema = z.looseObject(
  { egress: listOf(skillEgressSchema).optional() },
  { error: expected("a mapping") },
);

/** `metadata`: free-form by the AgentSkills format (any JSON value under any key), two keys read. */
export const skillMetadataSchema = z
  .object(
    { openclaw: openclawMetadataSchema.optional(), ironclaw: ironclawMetadataSchema.optional() },
    { error: expected("a mapping") },
  )
  .catchall(z.json());

export const skillFrontmatterSchema = z.looseObject(
  {
    name: skillName,
    description: aString()
      .max(1024, "must be at most 1024 characters")
      .regex(/\S/, "must not be blank: it is how the agent decides when to use the skill"),
    license: aString().optional(),
    compatibility: aString().max(500, "must be at most 500 characters").optional(),
    metadata: skillMetadataSchema.optional(),
    // AgentSkills writes a space-separated string; other hosts write a list.
    "allowed-tools": z
      .union([aString(), listOf(aString())], { error: expected("a string or a list of strings") })
      .optional(),
  },
  { error: expected("a YAML mapping") },
);

export type SkillFrontmatter = z.output<typeof skillFrontmatterSchema>;
