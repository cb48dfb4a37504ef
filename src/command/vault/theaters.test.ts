import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git } from "../../../test/command/vault-fixture.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../../core/index.js";
import { TheaterRegistry } from "./theaters.js";

let dir: string;
let theaters: TheaterRegistry;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ironclaw-theaters-"));
  theaters = new TheaterRegistry(join(dir, "theaters"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("TheaterRegistry", () => {
  it("creates a repository with an empty first commit on main under the theater's folder", async () => {
    const added = await theaters.add({ theaterId: "demo", owner: "u_1" });
    const repo = join(dir, "theaters", "demo", "repo");
    expect(added).toMatchObject({ theater_id: "demo", owner: "u_1", repo_path: repo, created: true });
    expect(git(repo, "log", "--format=%s", "main").out).toBe("theater created");
    expect(git(repo, "ls-tree", "main").out).toBe("");
    const stored = JSON.parse(await readFile(join(dir, "theaters", "demo", "theater.json"), "utf8"));
    expect(stored).toEqual({
      theater_id: "demo",
      owner: "u_1",
      repo_path: repo,
      created_at: added.created_at,
    });
    expect(await theaters.get("demo")).toEqual(stored);
    // Written through a temporary file that is gone once the record is in place.
    expect(await readdir(join(dir, "theaters", "demo"))).toEqual(["repo", "theater.json"]);
  });

  it("opens an existing repository without touching its history", async () => {
    const repo = join(dir, "existing");
    git(dir, "init", "-q", "-b", "main", repo);
    await writeFile(join(repo, "README.md"), "hello\n");
    git(repo, "add", "README.md");
    git(repo, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "-m", "mine");
    const before = git(repo, "rev-parse", "main").out;
    const added = await theaters.add({ theaterId: "proj_auth", owner: "u_2", repoPath: repo });
    expect(added).toMatchObject({ repo_path: repo, created: false });
    expect(git(repo, "rev-parse", "main").out).toBe(before);
  });

  it("creates the repository in an empty folder given as its path", async () => {
    const repo = join(dir, "empty");
    await mkdir(repo);
    expect((await theaters.add({ theaterId: "t1", owner: "u_1", repoPath: repo })).created).toBe(true);
    expect(git(repo, "rev-parse", "--abbrev-ref", "HEAD").out).toBe("main");
  });

  it("refuses a folder that is not a git repository, even inside one", async () => {
    const repo = join(dir, "outer");
    git(dir, "init", "-q", "-b", "main", repo);
    await mkdir(join(repo, "notes"));
    await writeFile(join(repo, "notes", "a.md"), "a\n");
    const add = theaters.add({ theaterId: "t1", owner: "u_1", repoPath: join(repo, "notes") });
    await expect(add).rejects.toThrow(
      new InvalidInputError("$.repo_path", `${join(repo, "notes")} is not empty and is not a git repository`),
    );
    expect(await theaters.get("t1")).toBeUndefined();
  });

  it("refuses a repository without main, a relative path, a duplicate id and an unsafe id", async () => {
    const repo = join(dir, "trunk");
    git(dir, "init", "-q", "-b", "trunk", repo);
    git(repo, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "x");
    await expect(theaters.add({ theaterId: "t1", owner: "u_1", repoPath: repo })).rejects.toThrow(
      "has no branch main",
    );
    await expect(theaters.add({ theaterId: "t1", owner: "u_1", repoPath: "rel/repo" })).rejects.toThrow(
      "$.repo_path: must be an absolute path",
    );
    await theaters.add({ theaterId: "demo", owner: "u_1" });
    await expect(theaters.add({ theaterId: "demo", owner: "u_2" })).rejects.toThrow(
      new ConflictError("theater demo already exists"),
    );
    expect((await theaters.get("demo"))?.owner).toBe("u_1");
    await expect(theaters.add({ theaterId: "../evil", owner: "u_1" })).rejects.toThrow("$.theater_id");
    await expect(theaters.require("nope")).rejects.toThrow(NotFoundError);
  });

  it("lists every theater for an admin and only a user's own for that user", async () => {
    await theaters.add({ theaterId: "b", owner: "u_1" });
    await theaters.add({ theaterId: "a", owner: "u_2" });
    await theaters.add({ theaterId: "c", owner: "u_1" });
    expect((await theaters.list()).map((t) => t.theater_id)).toEqual(["a", "b", "c"]);
    expect((await theaters.list({ owner: "u_1" })).map((t) => t.theater_id)).toEqual(["b", "c"]);
    expect(await theaters.list({ owner: "u_3" })).toEqual([]);
    expect(await new TheaterRegistry(join(dir, "absent")).list()).toEqual([]);
  });
});
