import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { skillName } from "../skills/index.js";
import { userNameSchema } from "./api.js";

// Skills over HTTP (issue #38 "Install with consent, pinned"): what a person sees before approving a skill, what
// each installed skill may reach, and the bodies of /api/skills. Shared by the routes, the CLI and the UI.

/** The biggest skill upload the warden reads: the 50 MB cap on a skill ("refuse … > 50 MB"). */
export const SKILL_UPLOAD_MAX_BYTES = 50 * 1024 * 1024;

/** What a skill upload may be sent as: a gzip-compressed or plain tar archive of the skill's folder. */
export const SKILL_UPLOAD_TYPES = [
  "application/gzip",
  "application/x-gzip",
  "application/x-tar",
  "application/octet-stream",
] as const;

/** The SHA-256 a review shows over the skill's files, as the lock file pins it: 64 lowercase hex characters. */
export const skillSha256Schema = aString().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters");

/**
 * One host a skill's requests may carry a secret to (`metadata.ironclaw.egress`): the warden's egress proxy puts
 * the secret, written as `format` says, into `header` of requests to exactly `host` on 443, optionally only for
 * these methods and paths.
 */
export const skillHostSchema = z.object({
  host: aString(),
  secret: aString(),
  header: aString(),
  format: aString(),
  methods: z.array(aString()).optional(),
  paths: z.array(aString()).optional(),
});

/** Everything a skill asks for, shown before approval and beside every installed skill. */
export const skillReachSchema = z.object({
  /** Hosts its requests may reach with a secret the warden's egress proxy puts into one header. */
  hosts: z.array(skillHostSchema),
  /** Secrets it needs from the user's store: egress secrets, required env and the primary env variable. */
  secrets: z.array(aString()),
  /** Environment variables it requires (`metadata.openclaw.requires.env`). */
  env: z.array(aString()),
  /** Programs it requires in the cell image (`requires.bins`). */
  bins: z.array(aString()),
  /** Programs of which it needs at least one (`requires.anyBins`). */
  any_bins: z.array(aString()),
  /** The agent tools it may use (`allowed-tools`); empty when it names none. */
  allowed_tools: z.array(aString()),
});

export const skillFileSchema = z.object({ path: aString(), bytes: aNumber(), sha256: aString() });

/** POST /api/skills/review: what an upload holds and asks for; nothing is installed yet. */
export const skillReviewSchema = z.object({
  user: aString(),
  name: aString(),
  description: aString(),
  /** What POST /api/skills/install must send back to approve exactly these files. */
  sha256: aString(),
  files: z.array(skillFileSchema),
  reach: skillReachSchema,
  /** Host-side installers it declares (brew, go, download…): never run, shown so nobody expects them to be. */
  ignored_installers: z.array(aString()),
  /** The installed version this one would replace, or null for a new skill. */
  replaces: z.object({ sha256: aString(), approved_at: aString() }).nullable(),
});

/** One installed skill: pinned by its hash, who approved it, whether the cell image can run it. */
export const installedSkillSchema = z.object({
  name: aString(),
  description: aString(),
  sha256: aString(),
  approved_at: aString(),
  approved_by: aString(),
  available: aBoolean(),
  /** Why the agent cannot use it (a program missing from the cell image); null when available. */
  unavailable_reason: aString().nullable(),
  reach: skillReachSchema,
});

/** GET /api/skills: a user's installed skills by name. */
export const skillListSchema = z.object({ user: aString(), skills: z.array(installedSkillSchema) });

/** Whose skills: admins may name a user (`?user=`); everybody else acts for themselves. */
export const skillScopeQuerySchema = z.strictObject({ user: userNameSchema.optional() });

/**
 * POST /api/skills/review's query: the archive's own file name, which names the skill's folder when its files
 * are not under one top folder (a browser sends the bytes without it).
 */
export const skillReviewQuerySchema = z.strictObject({
  user: userNameSchema.optional(),
  filename: aString()
    .regex(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
      /^[^/\\\u0000-\u001f]{1,200}\.(tar\.gz|tgz|tar)$/,
      "must be the archive's file name without a folder, ending in .tar.gz, .tgz or .tar",
    )
    .optional(),
});

export const skillNameParamsSchema = z.strictObject({ name: skillName });

/** POST /api/skills/install: approves exactly the reviewed upload, named by the hash its review showed. */
export const skillInstallBodySchema = z.strictObject({ sha256: skillSha256Schema });

export const skillRemovedSchema = z.object({ user: aString(), name: aString(), removed: aBoolean() });

export type SkillReach = z.output<typeof skillReachSchema>;
export type SkillReviewView = z.output<typeof skillReviewSchema>;
export type InstalledSkillView = z.output<typeof installedSkillSchema>;

export const skillsApiContracts: Contract[] = [
  defineContract({
    kind: "skill-install-request",
    seed: "003",
    title: "Skill install request (POST /api/skills/install)",
    description: "The SHA-256 of the reviewed skill upload the user approves.",
    format: "json",
    schema: skillInstallBodySchema,
  }),
  defineContract({
    kind: "skill-review",
    seed: "003",
    title: "Skill review (POST /api/skills/review, data)",
    description: "A staged skill's name, files, hash and what it asks for, shown before approval.",
    format: "json",
    schema: skillReviewSchema,
  }),
  defineContract({
    kind: "skill-list",
    seed: "003",
    title: "Installed skills (GET /api/skills, data)",
    description: "A user's installed skills with their pinned hash, approval, availability and reach.",
    format: "json",
    schema: skillListSchema,
  }),
];
