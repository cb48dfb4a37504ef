import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  git,
  openVaultFixture,
  orderFile,
  type VaultFixture,
  worktreeEvents,
} from "../../../test/command/vault-fixture.js";
import { ConflictError, InvalidInputError, ValidationError } from "../../core/index.js";
import { hostGit } from "../git/host-git.js";

let fx: VaultFixture;
beforeEach(async () => {
  fx = await openVaultFixture();
  await fx.addOrder("o1");
});
afterEach(async () => {
  await fx.close();
});

const create = () => fx.vault.createWorktree({ theaterId: "demo", runId: "r1", orderId: "o1" });

describe("Vault worktrees", () => {
  it("creates, prepares, commits and archives an order's worktree, with each step in the ledger", async () => {
    const { worktree_path, branch } = await create();
    expect(worktree_path).toBe(join(fx.dir, "theaters", "demo", "worktrees", "order_o1"));
    expect(branch).toBe("order_o1");
    expect(await fx.vault.worktreePath("o1")).toBe(worktree_path);

    const { commit_sha: prepared } = await fx.vault.prepare(
      "o1",
      orderFile("o1", { acceptance_tests: ["npm test"] }),
    );
    const task = await readFile(join(worktree_path, "task.md"), "utf8");
    expect(task).toContain("Summarize the input into 5 bullets");
    expect(task).toContain("- `npm test`");
    expect(JSON.parse(await readFile(join(worktree_path, "state.json"), "utf8"))).toMatchObject({
      status: "QUEUED",
      attempt: 0,
    });
    expect(git(fx.repo, "log", "-1", "--format=%s", branch).out).toBe("order o1: prepared");

    await writeFile(join(worktree_path, "summary.md"), "- five bullets\n");
    const committed = await fx.vault.commitAll("o1", "order o1: summary");
    expect(committed).not.toBe(prepared);
    expect(await fx.vault.commitAll("o1", "nothing new")).toBe(committed);

    const archived = await fx.vault.archive("o1");
    expect(archived.commit_sha).toBe(committed);
    expect(git(fx.repo, "rev-parse", "archive/order_o1").out).toBe(committed);
    expect(archived.bundle_path).toBe(join(fx.dir, "theaters", "demo", "archive", "order_o1.bundle"));
    const verify = git(fx.repo, "bundle", "verify", archived.bundle_path);
    expect(verify.code, verify.out).toBe(0);
    expect(existsSync(worktree_path)).toBe(false);
    expect(await worktreeEvents(fx.store, "o1")).toEqual([
      "WORKTREE_CREATED",
      "WORKTREE_READY",
      "WORKTREE_ARCHIVED",
      "WORKTREE_REMOVED",
    ]);
    expect((await fx.store.getOrder("o1"))?.worktree_state).toBe("REMOVED");
    // Archiving again answers the same archive; the ledger records nothing more.
    expect(await fx.vault.archive("o1")).toEqual(archived);
    expect(await worktreeEvents(fx.store, "o1")).toHaveLength(4);
  });

  it("commits a changed file and a removed one, and answers HEAD unchanged when nothing changed", async () => {
    const { worktree_path } = await create();
    const { commit_sha: prepared } = await fx.vault.prepare("o1", orderFile("o1"));
    expect(await fx.vault.commitAll("o1", "clean")).toBe(prepared);
    await writeFile(join(worktree_path, "task.md"), "changed\n");
    const changed = await fx.vault.commitAll("o1", "task changed");
    expect(changed).not.toBe(prepared);
    expect(git(worktree_path, "show", "HEAD:task.md").out).toBe("changed");
    await rm(join(worktree_path, "state.json"));
    const removed = await fx.vault.commitAll("o1", "state removed");
    expect(git(worktree_path, "ls-files").out.split("\n")).not.toContain("state.json");
    expect(git(worktree_path, "rev-parse", "HEAD^").out).toBe(changed);
    expect(await fx.vault.commitAll("o1", "clean again")).toBe(removed);
  });

  it("answers a second create of one order with the same worktree and one event", async () => {
    const [first, second] = await Promise.all([create(), create()]);
    expect(second).toEqual(first);
    expect(await create()).toEqual(first);
    expect(await worktreeEvents(fx.store, "o1")).toEqual(["WORKTREE_CREATED"]);
  });

  it("takes over a worktree made just before a crash, before its event was stored", async () => {
    const path = join(fx.dir, "theaters", "demo", "worktrees", "order_o1");
    await hostGit(fx.repo, ["worktree", "add", "-q", "-b", "order_o1", path, "main"]);
    expect(await create()).toEqual({ worktree_path: path, branch: "order_o1" });
    expect(await worktreeEvents(fx.store, "o1")).toEqual(["WORKTREE_CREATED"]);
  });

  it("refuses to delete a worktree with uncommitted changes, naming them", async () => {
    const { worktree_path } = await create();
    await writeFile(join(worktree_path, "draft.txt"), "half done\n");
    await expect(fx.vault.remove("o1")).rejects.toThrow(new ConflictError("uncommitted changes: draft.txt"));
    expect(existsSync(join(worktree_path, "draft.txt"))).toBe(true);
    expect(await worktreeEvents(fx.store, "o1")).toEqual(["WORKTREE_CREATED"]);
  });

  it("refuses to delete unmerged commits, and deletes once main has them", async () => {
    const { worktree_path, branch } = await create();
    await writeFile(join(worktree_path, "a.txt"), "a\n");
    await fx.vault.commitAll("o1", "a");
    await writeFile(join(worktree_path, "b.txt"), "b\n");
    await fx.vault.commitAll("o1", "b");
    await expect(fx.vault.remove("o1")).rejects.toThrow(
      "2 commits on order_o1 are neither merged into main nor archived",
    );
    await hostGit(fx.repo, ["merge", "-q", "--no-ff", "-m", "integrate o1", branch]);
    await fx.vault.remove("o1");
    expect(existsSync(worktree_path)).toBe(false);
    expect(git(fx.repo, "branch", "--list", branch).out).toBe("");
    expect(await worktreeEvents(fx.store, "o1")).toEqual(["WORKTREE_CREATED", "WORKTREE_REMOVED"]);
  });

  it("deletes an archived order's branch, whose commits the archive tag keeps", async () => {
    const { worktree_path, branch } = await create();
    await writeFile(join(worktree_path, "a.txt"), "a\n");
    const sha = await fx.vault.commitAll("o1", "a");
    await fx.vault.archive("o1");
    expect(git(fx.repo, "branch", "--list", branch).out).toContain(branch);
    await fx.vault.remove("o1");
    expect(git(fx.repo, "branch", "--list", branch).out).toBe("");
    expect(git(fx.repo, "rev-parse", "archive/order_o1").out).toBe(sha);
    expect(await worktreeEvents(fx.store, "o1")).toHaveLength(3);
  });

  it("recreates an archived order's worktree on its kept branch, and a second archive moves the tag forward", async () => {
    const first = await create();
    await writeFile(join(first.worktree_path, "a.txt"), "a\n");
    const a = await fx.vault.commitAll("o1", "a");
    await fx.vault.archive("o1");
    const again = await create();
    expect(again).toEqual(first);
    expect(await readFile(join(again.worktree_path, "a.txt"), "utf8")).toBe("a\n");
    await writeFile(join(again.worktree_path, "b.txt"), "b\n");
    const b = await fx.vault.commitAll("o1", "b");
    expect((await fx.vault.archive("o1")).commit_sha).toBe(b);
    expect(git(fx.repo, "merge-base", "--is-ancestor", a, "archive/order_o1").code).toBe(0);
    expect(git(fx.repo, "rev-parse", "archive/order_o1").out).toBe(b);
  });

  it("refuses to archive uncommitted work rather than lose it", async () => {
    const { worktree_path } = await create();
    await writeFile(join(worktree_path, "late.txt"), "late\n");
    await expect(fx.vault.archive("o1")).rejects.toThrow("uncommitted changes: late.txt");
    expect(existsSync(join(worktree_path, "late.txt"))).toBe(true);
  });

  it("makes no worktree for a cancelled order", async () => {
    const base = { garrison_id: "local", theater_id: "demo", run_id: "r1", order_id: "o1", unit_id: null };
    await fx.store.append({ ...base, type: "ORDER_CANCELLED", payload: {} });
    await expect(create()).rejects.toThrow(new ConflictError("order o1 is cancelled"));
    expect(existsSync(join(fx.dir, "theaters", "demo", "worktrees", "order_o1"))).toBe(false);
    expect(git(fx.repo, "branch", "--list", "order_o1").out).toBe("");
  });

  it("branches a new worktree from the theater's current main", async () => {
    await hostGit(fx.repo, ["commit", "-q", "--allow-empty", "-m", "main moved"]);
    const { branch } = await create();
    expect(git(fx.repo, "rev-parse", branch).out).toBe(git(fx.repo, "rev-parse", "main").out);
  });

  it("refuses bad ids and an order.json that does not fit, naming the field", async () => {
    await expect(
      fx.vault.createWorktree({ theaterId: "demo", runId: "r1", orderId: "../x" }),
    ).rejects.toThrow(InvalidInputError);
    await expect(fx.vault.remove("../../etc")).rejects.toThrow("$.order_id: must not contain / or \\");
    await create();
    const bad = fx.vault.prepare("o1", { ...orderFile("o1"), objective: "" });
    await expect(bad).rejects.toThrow(ValidationError);
    await expect(fx.vault.prepare("o1", { ...orderFile("o1"), objective: "" })).rejects.toThrow(
      "$.order.objective",
    );
    await expect(fx.vault.prepare("o1", orderFile("o2"))).rejects.toThrow("$.order.order_id: must be o1");
    expect(await worktreeEvents(fx.store, "o1")).toEqual(["WORKTREE_CREATED"]);
  });
});
