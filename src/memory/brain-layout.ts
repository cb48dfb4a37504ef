import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { brainPath } from "../contracts/index.js";
import { InvalidInputError, NotFoundError, realpathOfDeepestExisting } from "../core/index.js";

/** The fixed places of a brain (seed 003 §5.1), relative to its root. */
export const BRAIN_PATHS = {
  soul: "soul.md",
  identity: "identity.md",
  instructions: "instructions",
  memory: "memory.md",
  logs: "logs",
  cronJobs: "cron/jobs.toml",
  config: "config",
  irowclawConfig: "config/irowclaw.toml",
  agents: "config/agents",
  db: "db",
  database: "db/ironclaw.db",
} as const;

/**
 * A brain directory. Every path handed to it is relative to the root and is refused — with an
 * InvalidInputError naming the field — when it is absolute, contains `..`, or resolves (through a symlink)
 * outside the root, so nothing built on it can read or write beyond the brain.
 */
export class BrainLayout {
  /** The root with symlinks resolved, so containment checks compare real paths. */
  readonly root: string;

  private constructor(root: string) {
    this.root = root;
  }

  /** Opens an existing brain directory. */
  static open(dir: string): BrainLayout {
    const absolute = resolve(dir);
    let real: string;
    try {
      real = realpathSync(absolute);
    } catch {
      throw new NotFoundError("brain directory", absolute);
    }
    if (!statSync(real).isDirectory()) throw new InvalidInputError("brain", `${absolute} is not a directory`);
    return new BrainLayout(real);
  }

  get databaseFile(): string {
    return join(this.root, BRAIN_PATHS.database);
  }

  /** The absolute path of a brain-relative path, after refusing anything that would leave the brain. */
  resolve(path: string, field = "path"): string {
    const checked = brainPath.safeParse(path);
    if (!checked.success) {
      throw new InvalidInputError(
        field,
        `${JSON.stringify(path)} ${checked.error.issues[0]?.message ?? "is invalid"}`,
      );
    }
    if (isAbsolute(path))
      throw new InvalidInputError(field, `${JSON.stringify(path)} must be relative to the brain`);
    const absolute = resolve(this.root, path);
    if (!this.contains(absolute))
      throw new InvalidInputError(field, `${JSON.stringify(path)} escapes the brain`);
    // A symlink anywhere on the way may point out of the brain: compare the real path of the deepest part
    // that exists (the file itself, or the directory a new file would be created in).
    const real = realpathOfDeepestExisting(absolute);
    if (!this.contains(real)) {
      throw new InvalidInputError(field, `${JSON.stringify(path)} leads outside the brain through a symlink`);
    }
    return absolute;
  }

  /** The brain-relative form (forward slashes) of an absolute path inside the brain. */
  relativePath(absolute: string): string {
    if (!this.contains(absolute)) throw new InvalidInputError("path", `${absolute} is not inside the brain`);
    return relative(this.root, absolute).split(sep).join("/");
  }

  /** `logs/YYYY-MM-DD.md` for a date, by UTC: a cell has no meaningful local time zone. */
  dailyLogPath(date: Date): string {
    return `${BRAIN_PATHS.logs}/${date.toISOString().slice(0, 10)}.md`;
  }

  private contains(absolute: string): boolean {
    const rel = relative(this.root, absolute);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  }
}

/** Markdown files are indexed; the database folder and hidden files (editor swap files, `.git`) are not. */
export function isIndexablePath(relativePath: string): boolean {
  if (!relativePath.endsWith(".md")) return false;
  const segments = relativePath.split("/");
  if (segments[0] === BRAIN_PATHS.db) return false;
  return !segments.some((s) => s.startsWith("."));
}
