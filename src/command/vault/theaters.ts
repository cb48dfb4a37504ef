import { link, lstat, mkdir, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { isoUtc, nonEmptyString, pathSafeId, theaterCreateRequestSchema } from "../../contracts/index.js";
import {
  ConflictError,
  InvalidInputError,
  issuesFromZod,
  NotFoundError,
  newId,
  nowIso,
  ValidationError,
} from "../../core/index.js";
import { GitError, hostGit } from "../git/host-git.js";
import { requireSafeId } from "./safe-id.js";

/** The contracts' absolute-path rule, as POST /theaters applies it to repo_path. */
const absolutePath = theaterCreateRequestSchema.shape.repo_path;

/** `<theatersDir>/<id>/theater.json`: who owns a theater and where its repository is. */
export const theaterRecordSchema = z.looseObject({
  theater_id: pathSafeId,
  owner: nonEmptyString,
  repo_path: absolutePath,
  created_at: isoUtc,
});

export type TheaterRecord = z.output<typeof theaterRecordSchema>;

export interface TheaterAddRequest {
  theaterId: string;
  /** An absolute path; default `<theatersDir>/<id>/repo`. */
  repoPath?: string;
  /** The user the theater belongs to. */
  owner: string;
}

export interface TheaterAddResult extends TheaterRecord {
  /** True when the repository was made here, false when an existing one was opened (POST /theaters answers it). */
  created: boolean;
}

/**
 * The theaters on this host, one folder each under `theatersDir` (IRONCLAW_HOME/theaters): `theater.json`, the
 * default `repo/`, the order `worktrees/` and the `archive/` of removed ones. Every worktree branches from the
 * repository's `main`, so a theater's repository always has one.
 */
export class TheaterRegistry {
  constructor(readonly theatersDir: string) {}

  /** The folder of a theater, where its worktrees and archives live whatever its repository's path. */
  theaterDir(theaterId: string): string {
    return join(this.theatersDir, requireSafeId("$.theater_id", theaterId));
  }

  async add(request: TheaterAddRequest): Promise<TheaterAddResult> {
    const theaterId = requireSafeId("$.theater_id", request.theaterId);
    const owner = nonEmptyString.safeParse(request.owner);
    if (!owner.success) throw new InvalidInputError("$.owner", "must be a non-empty string");
    const dir = this.theaterDir(theaterId);
    const repoPath = request.repoPath ?? join(dir, "repo");
    const checked = absolutePath.safeParse(repoPath);
    if (!checked.success) throw new InvalidInputError("$.repo_path", checked.error.issues[0]?.message ?? "");
    if (await this.get(theaterId)) throw new ConflictError(`theater ${theaterId} already exists`);
    const created = await openOrCreateRepo(repoPath);
    const record: TheaterRecord = {
      theater_id: theaterId,
      owner: owner.data,
      repo_path: repoPath,
      created_at: nowIso(),
    };
    await mkdir(dir, { recursive: true });
    await writeExclusive(join(dir, "theater.json"), `${JSON.stringify(record, null, 2)}\n`, theaterId);
    return { ...record, created };
  }

  async get(theaterId: string): Promise<TheaterRecord | undefined> {
    const file = join(this.theaterDir(theaterId), "theater.json");
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    const parsed = theaterRecordSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new ValidationError(file, issuesFromZod(parsed.error));
    return parsed.data;
  }

  /** Like get, but a missing theater is an error that names it. */
  async require(theaterId: string): Promise<TheaterRecord> {
    const theater = await this.get(theaterId);
    if (!theater) throw new NotFoundError("theater", theaterId);
    return theater;
  }

  /** Every theater, or only one owner's (admins pass no owner), ordered by id. */
  async list(filter: { owner?: string } = {}): Promise<TheaterRecord[]> {
    let names: string[];
    try {
      names = (await readdir(this.theatersDir, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory() && pathSafeId.safeParse(entry.name).success)
        .map((entry) => entry.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const theaters: TheaterRecord[] = [];
    for (const name of names.sort()) {
      const theater = await this.get(name);
      if (theater && (filter.owner === undefined || theater.owner === filter.owner)) theaters.push(theater);
    }
    return theaters;
  }
}

/**
 * Makes a repository with one empty commit on `main` where the path is absent or an empty folder; otherwise the
 * path must already be a repository of its own (its own `.git` folder, so that git never climbs to a parent
 * repository) with a `main` branch, or a fresh one without any commit yet. Returns whether it made one.
 */
async function openOrCreateRepo(repoPath: string): Promise<boolean> {
  const entries = await readdir(repoPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    if (error.code === "ENOTDIR") throw new InvalidInputError("$.repo_path", `${repoPath} is not a folder`);
    throw error;
  });
  if (entries === undefined || entries.length === 0) {
    await mkdir(repoPath, { recursive: true });
    await hostGit(repoPath, ["init", "-q", "-b", "main"]);
    await commitInitial(repoPath);
    return true;
  }
  const gitDir = join(repoPath, ".git");
  const stat = await lstat(gitDir).catch(() => undefined);
  if (!stat?.isDirectory())
    throw new InvalidInputError("$.repo_path", `${repoPath} is not empty and is not a git repository`);
  const git = (args: string[]) =>
    hostGit(repoPath, [`--git-dir=${gitDir}`, `--work-tree=${repoPath}`, ...args]);
  try {
    await git(["rev-parse", "--git-dir"]);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    throw new InvalidInputError("$.repo_path", `${repoPath} is not a git repository: ${error.stderr.trim()}`);
  }
  const refs = await git(["for-each-ref", "--format=%(refname)", "refs/heads/"]);
  if (refs.stdout.trim() === "") {
    await git(["symbolic-ref", "HEAD", "refs/heads/main"]);
    await commitInitial(repoPath);
  } else if (!refs.stdout.split("\n").includes("refs/heads/main")) {
    throw new InvalidInputError("$.repo_path", `${repoPath} has no branch main, which orders branch from`);
  }
  return false;
}

async function commitInitial(repoPath: string): Promise<void> {
  await hostGit(repoPath, ["commit", "-q", "--allow-empty", "-m", "theater created"]);
}

/** Writes a file whole, never over an existing one: a temporary file linked into place (link fails if taken). */
async function writeExclusive(file: string, text: string, theaterId: string): Promise<void> {
  const temporary = `${file}.${newId()}.tmp`;
  await writeFile(temporary, text, { flag: "wx" });
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new ConflictError(`theater ${theaterId} already exists`);
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
}

/** The repository's git directory as git itself writes it into a worktree's `.git` file (symlinks resolved). */
export async function realGitDir(theater: TheaterRecord): Promise<string> {
  return join(await realpath(theater.repo_path), ".git");
}
