import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { parseSkillMd, skillRequirements } from "../../contracts/index.js";
import { ValidationError } from "../../core/index.js";
import { currentSkillHost, type SkillHost, skillUnavailableReason } from "./skill-gate.js";

/** A skill the model may use: what the prompt says of it. Never its body, which is read on demand. */
export interface OfferedSkill {
  name: string;
  description: string;
  /** Its SKILL.md, where the file tool reads it. */
  location: string;
}

/** A skill that is installed but cannot run here, with why (for the agent to tell the user). */
export interface UnavailableSkill {
  name: string;
  reason: string;
}

export interface SkillListing {
  available: OfferedSkill[];
  unavailable: UnavailableSkill[];
}

/**
 * The most of a SKILL.md read to list it: the frontmatter comes first, and a body past this is only ever read
 * by the agent itself. Bounds what one turn's listing costs, whatever a skill holds.
 */
const MAX_LISTED_BYTES = 256 * 1024;

/**
 * The installed skills in `dir` (read-only in a cell), listed at each turn. The folder and its skills are
 * stat-ed each time, and read again only when one of their times changed: the cost of an unchanged listing is a
 * readdir and two stats per skill.
 */
export class SkillCatalog {
  private cached: { stamp: string; listing: SkillListing } | undefined;
  /** Each skill as last read, by its stamp: one skill changed is one skill parsed again (~6 ms each). */
  private readonly skills = new Map<string, { stamp: string; read: OfferedSkill | UnavailableSkill }>();

  constructor(
    readonly dir: string,
    private readonly host: SkillHost = currentSkillHost(),
  ) {}

  list(): SkillListing {
    const names = this.names();
    const stamps = new Map(names.map((name) => [name, this.skillStamp(name)]));
    const stamp = [statStamp(this.dir), ...[...stamps].map(([name, s]) => `${name}:${s}`)].join("\n");
    if (this.cached?.stamp === stamp) return this.cached.listing;
    const listing: SkillListing = { available: [], unavailable: [] };
    for (const [name, skillStamp] of stamps) {
      let known = this.skills.get(name);
      if (known?.stamp !== skillStamp) {
        known = { stamp: skillStamp, read: this.read(name) };
        this.skills.set(name, known);
      }
      const { read } = known;
      if ("reason" in read) listing.unavailable.push(read);
      else listing.available.push(read);
    }
    for (const name of this.skills.keys()) if (!stamps.has(name)) this.skills.delete(name);
    this.cached = { stamp, listing };
    return listing;
  }

  /** Sorted folder names; a missing folder (no skills installed, or none mounted) lists nothing. */
  private names(): string[] {
    try {
      return readdirSync(this.dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
        .map((entry) => entry.name)
        .sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  private skillStamp(name: string): string {
    return `${statStamp(join(this.dir, name))}/${statStamp(join(this.dir, name, "SKILL.md"))}`;
  }

  private read(name: string): OfferedSkill | UnavailableSkill {
    const location = join(this.dir, name, "SKILL.md");
    const text = readHead(location);
    if (text === undefined) return { name, reason: "it has no SKILL.md" };
    try {
      const { frontmatter } = parseSkillMd(text, name);
      const reason = skillUnavailableReason(skillRequirements(frontmatter), this.host);
      return reason ? { name, reason } : { name, description: frontmatter.description, location };
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const first = error.issues[0];
      return {
        name,
        reason: `its SKILL.md is invalid (${first ? `${first.path}: ${first.message}` : "unknown"})`,
      };
    }
  }
}

/** The first MAX_LISTED_BYTES of a regular file, never through a link; undefined when it is not one. */
function readHead(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(MAX_LISTED_BYTES);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function statStamp(path: string): string {
  try {
    const info = lstatSync(path);
    return `${info.ino}.${info.mtimeMs}.${info.size}`;
  } catch {
    return "-";
  }
}
