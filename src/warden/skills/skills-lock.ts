import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { SKILL_EGRESS_METHODS, skillName } from "../../contracts/index.js";
import { IronclawError } from "../../core/index.js";
import type { SkillAsks } from "./skill-review.js";

/**
 * `users/<uid>/skills.lock`: the skills a person approved, each pinned to the sha256 they saw. A skill folder
 * without an entry here, or with another hash, is not approved: nothing of it reaches a cell's egress plan.
 */
export interface SkillsLock {
  version: 1;
  skills: Record<string, SkillLockEntry>;
}

export interface SkillLockEntry {
  sha256: string;
  approved_at: string;
  approved_by: string;
  asks: SkillAsks;
}

const hosts = z.array(
  z.looseObject({
    host: z.string(),
    header: z.string(),
    format: z.string(),
    secret: z.string(),
    methods: z.array(z.enum(SKILL_EGRESS_METHODS)).optional(),
    paths: z.array(z.string()).optional(),
  }),
);

const strings = z.array(z.string());

const lockSchema = z.object({
  version: z.literal(1),
  skills: z.record(
    skillName,
    z.object({
      sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits"),
      approved_at: z.string(),
      approved_by: z.string(),
      asks: z.looseObject({
        hosts,
        secrets: strings,
        env: strings,
        bins: strings,
        anyBins: strings,
        allowedTools: strings,
        os: strings.optional(),
        ignoredInstall: strings,
      }),
    }),
  ),
});

export function readSkillsLock(file: string): SkillsLock {
  if (!existsSync(file)) return { version: 1, skills: {} };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (cause) {
    throw new IronclawError("skills_lock_invalid", `${file} is not valid JSON: ${(cause as Error).message}`);
  }
  const parsed = lockSchema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new IronclawError(
      "skills_lock_invalid",
      `${file}: ${first?.path.join(".") || "$"}: ${first?.message ?? "invalid"}; no skill of this user is approved until it is fixed`,
    );
  }
  return parsed.data as SkillsLock;
}

/** Replaces the lock in one rename, so a reader sees the old lock or the new one, never half of either. */
export function writeSkillsLock(file: string, lock: SkillsLock): void {
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(lock, null, 2)}\n`, { mode: 0o644, flag: "wx", flush: true });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
