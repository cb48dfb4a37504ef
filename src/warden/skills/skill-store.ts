import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseSkillMd, type SkillRequirements, skillRequirements } from "../../contracts/index.js";
import { InvalidInputError, IronclawError, NotFoundError, withWriterLock } from "../../core/index.js";
import type { AuditRecordInput } from "../audit-store.js";
import { CELL_IMAGE_BIN_DIRS, skillAvailability } from "./skill-availability.js";
import { SKILL_LIMITS, type SkillLimits, SkillRefusal } from "./skill-refusal.js";
import {
  type ReviewedSkill,
  reviewSource,
  type SkillAsks,
  type SkillHostAsk,
  type SkillReview,
} from "./skill-review.js";
import { readSkillsLock, type SkillsLock, writeSkillsLock } from "./skills-lock.js";

export interface SkillStoreOptions {
  /** `[storage] users_dir`: each user's skills are `<usersDir>/<uid>/skills/<name>/`, the lock beside them. */
  usersDir: string;
  audit: (entry: AuditRecordInput) => void;
  /** Where the cell image keeps programs, for availability (default: the host's, as bwrap and process cells see). */
  imageBinDirs?: readonly string[];
  limits?: SkillLimits;
  now?: () => Date;
}

/** A person's consent: the sha256 they were shown, and who they are, for the lock and the audit trail. */
export interface SkillApproval {
  approvedSha256: string;
  by: string;
}

export interface InstalledSkill {
  name: string;
  description: string;
  sha256: string;
  approvedAt: string;
  approvedBy: string;
  asks: SkillAsks;
  requirements: SkillRequirements;
  /** The skill's folder on the host. */
  location: string;
  available: boolean;
  /** Why the skill cannot work in a cell, when it cannot. */
  reason?: string;
}

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * A user's installed skills. Every source is read as hostile, the person approves the exact sha256 they were
 * shown, the folder is written whole or not at all, skills.lock pins it, and every decision is audited.
 */
export class SkillStore {
  private readonly binDirs: readonly string[];
  private readonly limits: SkillLimits;
  private readonly now: () => Date;

  constructor(private readonly options: SkillStoreOptions) {
    this.binDirs = options.imageBinDirs ?? CELL_IMAGE_BIN_DIRS;
    this.limits = options.limits ?? SKILL_LIMITS;
    this.now = options.now ?? (() => new Date());
  }

  /** What a folder or archive (also a draft in a brain) holds and asks for; nothing is written. */
  async review(source: string): Promise<SkillReview> {
    return (await reviewSource(source, this.limits)).review;
  }

  async install(userId: string, source: string, approval: SkillApproval): Promise<InstalledSkill> {
    const reviewed = await this.reviewForUser(userId, source, "install", approval);
    return this.writing(userId, () => this.installReviewed(userId, source, approval, reviewed));
  }

  private installReviewed(
    userId: string,
    source: string,
    approval: SkillApproval,
    reviewed: ReviewedSkill,
  ): InstalledSkill {
    const paths = this.pathsOf(userId);
    const { name } = reviewed.review;
    const lock = readSkillsLock(paths.lock);
    if (lock.skills[name] !== undefined || lstatSync(join(paths.skills, name), { throwIfNoEntry: false }))
      this.refuse(
        userId,
        source,
        "install",
        approval,
        `${name} is already installed: update it instead`,
        name,
      );
    const staged = this.stage(paths.user, reviewed);
    try {
      renameSync(staged, join(paths.skills, name));
    } catch (error) {
      rmSync(staged, { recursive: true, force: true });
      throw error;
    }
    this.pin(paths.lock, lock, reviewed, approval);
    this.record(userId, approval.by, "skill.installed", { name, sha256: reviewed.review.sha256, source });
    return this.installed(userId, name);
  }

  /** Replaces an installed skill with a new version; the new hash must have been approved. */
  async update(userId: string, source: string, approval: SkillApproval): Promise<InstalledSkill> {
    const reviewed = await this.reviewForUser(userId, source, "update", approval);
    return this.writing(userId, () => this.updateReviewed(userId, source, approval, reviewed));
  }

  private updateReviewed(
    userId: string,
    source: string,
    approval: SkillApproval,
    reviewed: ReviewedSkill,
  ): InstalledSkill {
    const paths = this.pathsOf(userId);
    const { name, sha256 } = reviewed.review;
    const lock = readSkillsLock(paths.lock);
    const before = lock.skills[name];
    if (before === undefined)
      this.refuse(userId, source, "update", approval, `${name} is not installed: install it first`, name);
    const target = join(paths.skills, name);
    const staged = this.stage(paths.user, reviewed);
    const old = join(paths.user, `skills.old-${randomBytes(6).toString("hex")}`);
    renameSync(target, old);
    try {
      renameSync(staged, target);
    } catch (error) {
      renameSync(old, target);
      rmSync(staged, { recursive: true, force: true });
      throw error;
    }
    this.pin(paths.lock, lock, reviewed, approval);
    rmSync(old, { recursive: true, force: true });
    this.record(userId, approval.by, "skill.updated", { name, from: before.sha256, sha256, source });
    return this.installed(userId, name);
  }

  remove(userId: string, name: string, by: string): void {
    this.writing(userId, () => this.removeNow(userId, name, by));
  }

  /**
   * One writer of a user's skills at a time, across processes: the warden (the UI's approvals) and `ironclaw
   * skills` may install into the same folder, and each rewrites skills.lock from what it read.
   */
  private writing<T>(userId: string, work: () => T): T {
    return withWriterLock(join(this.pathsOf(userId).user, "skills.writer.lock"), work, {
      what: `the skills of ${userId}`,
    });
  }

  private removeNow(userId: string, name: string, by: string): void {
    const paths = this.pathsOf(userId);
    const lock = readSkillsLock(paths.lock);
    const entry = lock.skills[name];
    if (entry === undefined) throw new NotFoundError("skill", name);
    const { [name]: _, ...rest } = lock.skills;
    // Unpinned first: a crash after this leaves a folder no cell trusts, never a pin without its files.
    writeSkillsLock(paths.lock, { version: 1, skills: rest });
    const doomed = join(paths.user, `skills.removed-${randomBytes(6).toString("hex")}`);
    if (lstatSync(join(paths.skills, name), { throwIfNoEntry: false }))
      renameSync(join(paths.skills, name), doomed);
    rmSync(doomed, { recursive: true, force: true });
    this.record(userId, by, "skill.removed", { name, sha256: entry.sha256 });
  }

  /** The approved skills, by name, each with whether it can work in a cell and why not. */
  list(userId: string): InstalledSkill[] {
    const lock = readSkillsLock(this.pathsOf(userId).lock);
    return Object.keys(lock.skills)
      .sort()
      .map((name) => this.describe(userId, name, lock));
  }

  /** Where approved skills may have a secret sent, each named with its skill (the secret store's source). */
  egressDeclarations(userId: string): Array<SkillHostAsk & { skill: string }> {
    const lock = readSkillsLock(this.pathsOf(userId).lock);
    return Object.entries(lock.skills).flatMap(([skill, entry]) =>
      entry.asks.hosts.map((h) => ({ ...h, skill })),
    );
  }

  /** Variables approved skills declare (`requires.env`, `primaryEnv`), each named with its skill. */
  requiredEnv(userId: string): Array<{ skill: string; name: string }> {
    const lock = readSkillsLock(this.pathsOf(userId).lock);
    return Object.entries(lock.skills).flatMap(([skill, entry]) =>
      entry.asks.env.map((name) => ({ skill, name })),
    );
  }

  /** `<usersDir>/<uid>/skills`, the folder a cell mounts read-only. */
  skillsDir(userId: string): string {
    return this.pathsOf(userId).skills;
  }

  private installed(userId: string, name: string): InstalledSkill {
    return this.describe(userId, name, readSkillsLock(this.pathsOf(userId).lock));
  }

  private describe(userId: string, name: string, lock: SkillsLock): InstalledSkill {
    const entry = lock.skills[name];
    if (entry === undefined) throw new NotFoundError("skill", name);
    const location = join(this.pathsOf(userId).skills, name);
    const base = {
      name,
      sha256: entry.sha256,
      approvedAt: entry.approved_at,
      approvedBy: entry.approved_by,
      asks: entry.asks,
      location,
    };
    try {
      const { frontmatter } = parseSkillMd(readFileSync(join(location, "SKILL.md"), "utf8"), name);
      const requirements = skillRequirements(frontmatter);
      const availability = skillAvailability(requirements, this.binDirs);
      return { ...base, description: frontmatter.description, requirements, ...availability };
    } catch (error) {
      const reason = `its installed files cannot be read (${(error as Error).message}); remove and install it again`;
      return {
        ...base,
        description: "",
        requirements: { env: [], bins: [], anyBins: [] },
        available: false,
        reason,
      };
    }
  }

  private async reviewForUser(
    userId: string,
    source: string,
    step: "install" | "update",
    approval: SkillApproval,
  ): Promise<ReviewedSkill> {
    let reviewed: ReviewedSkill;
    try {
      reviewed = await reviewSource(source, this.limits);
    } catch (error) {
      if (error instanceof SkillRefusal) this.refuse(userId, source, step, approval, error.message);
      throw error;
    }
    if (reviewed.review.sha256 !== approval.approvedSha256)
      this.refuse(
        userId,
        source,
        step,
        approval,
        `the skill's sha256 is ${reviewed.review.sha256}, not the approved ${approval.approvedSha256}: review it again and approve what it holds now`,
        reviewed.review.name,
      );
    return reviewed;
  }

  /** Writes the reviewed bytes into a fresh folder beside `skills/`, invisible to cells until renamed in. */
  private stage(userDir: string, reviewed: ReviewedSkill): string {
    const staged = join(userDir, `skills.staging-${randomBytes(6).toString("hex")}`);
    try {
      mkdirSync(staged, { mode: 0o755 });
      for (const file of reviewed.contents) {
        const target = join(staged, file.path);
        mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
        writeFileSync(target, file.bytes, { mode: 0o644, flag: "wx" });
      }
    } catch (error) {
      rmSync(staged, { recursive: true, force: true });
      throw error;
    }
    return staged;
  }

  private pin(lockFile: string, lock: SkillsLock, reviewed: ReviewedSkill, approval: SkillApproval): void {
    const { name, sha256, asks } = reviewed.review;
    writeSkillsLock(lockFile, {
      version: 1,
      skills: {
        ...lock.skills,
        [name]: { sha256, approved_at: this.now().toISOString(), approved_by: approval.by, asks },
      },
    });
  }

  private refuse(
    userId: string,
    source: string,
    step: "install" | "update",
    approval: SkillApproval,
    reason: string,
    name?: string,
  ): never {
    this.record(userId, approval.by, "skill.refused", { step, source, reason, ...(name ? { name } : {}) });
    throw new SkillRefusal(reason);
  }

  private record(userId: string, by: string, action: string, detail: Record<string, unknown>): void {
    this.options.audit({ userId, actor: by, action, detail });
  }

  private pathsOf(userId: string): { user: string; skills: string; lock: string } {
    if (!USER_ID.test(userId))
      throw new InvalidInputError(
        "userId",
        "must be 1-64 letters, digits, - or _, starting with a letter or digit",
      );
    const user = join(this.options.usersDir, userId);
    const skills = join(user, "skills");
    mkdirSync(skills, { recursive: true, mode: 0o755 });
    const info = lstatSync(skills);
    if (!info.isDirectory())
      throw new IronclawError(
        "skills_dir_refused",
        `${skills} is ${info.isSymbolicLink() ? "a symbolic link" : "not a directory"}: installed skills must be a real directory`,
      );
    return { user, skills, lock: join(user, "skills.lock") };
  }
}
