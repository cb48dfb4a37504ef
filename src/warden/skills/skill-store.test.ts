import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditStore, migrateAuditTables } from "../audit-store.js";
import { SkillRefusal } from "./skill-refusal.js";
import { SkillStore } from "./skill-store.js";

let root: string;
let db: Database.Database;
let audit: AuditStore;
let store: SkillStore;
let binDir: string;

const GITHUB = `---
name: github-issues
description: List GitHub issues.
metadata:
  openclaw: { requires: { env: [GITHUB_TOKEN], bins: [gh-probe] }, install: [{ kind: brew, formula: gh }] }
  ironclaw:
    egress: [{ host: api.github.com, secret: GITHUB_TOKEN, header: Authorization, format: "Bearer {secret}" }]
allowed-tools: bash
---
Run gh-probe.
`;

function skillFolder(name: string, files: Record<string, string>): string {
  const dir = join(root, "src", name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "skill-store-"));
  db = new Database(join(root, "host.db"));
  migrateAuditTables(db);
  audit = new AuditStore(db);
  binDir = join(root, "image-bin");
  mkdirSync(binDir);
  store = new SkillStore({
    usersDir: join(root, "users"),
    audit: (entry) => audit.record(entry),
    imageBinDirs: [binDir],
  });
});

afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

describe("SkillStore", () => {
  it("reviews what a skill asks for, and lists its installers as ignored", async () => {
    const review = await store.review(skillFolder("github-issues", { "SKILL.md": GITHUB }));
    expect(review.name).toBe("github-issues");
    expect(review.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(review.files.map((f) => f.path)).toEqual(["SKILL.md"]);
    expect(review.asks).toMatchObject({
      hosts: [{ host: "api.github.com", header: "Authorization", secret: "GITHUB_TOKEN" }],
      secrets: ["GITHUB_TOKEN"],
      env: ["GITHUB_TOKEN"],
      bins: ["gh-probe"],
      allowedTools: ["bash"],
    });
    expect(review.asks.ignoredInstall).toEqual([expect.stringMatching(/^brew gh \(not run: /)]);
  });

  it("installs only the approved hash, pins it in skills.lock and audits it", async () => {
    const source = skillFolder("github-issues", { "SKILL.md": GITHUB, "scripts/run.sh": "echo hi\n" });
    const { sha256 } = await store.review(source);
    await expect(
      store.install("ada", source, { approvedSha256: "0".repeat(64), by: "cli:ada" }),
    ).rejects.toThrow(/not the approved 0{64}/);
    expect(existsSync(join(root, "users/ada/skills/github-issues"))).toBe(false);

    const installed = await store.install("ada", source, { approvedSha256: sha256, by: "cli:ada" });
    expect(installed).toMatchObject({
      name: "github-issues",
      sha256,
      approvedBy: "cli:ada",
      available: false,
    });
    expect(installed.reason).toContain("needs gh-probe: not in the cell image");
    expect(readFileSync(join(root, "users/ada/skills/github-issues/scripts/run.sh"), "utf8")).toBe(
      "echo hi\n",
    );
    const lock = JSON.parse(readFileSync(join(root, "users/ada/skills.lock"), "utf8"));
    expect(lock).toMatchObject({
      version: 1,
      skills: { "github-issues": { sha256, approved_by: "cli:ada" } },
    });
    expect(readdirSync(join(root, "users/ada")).sort()).toEqual(["skills", "skills.lock"]);
    expect(audit.list({ userId: "ada" }).map((a) => a.action)).toEqual(["skill.installed", "skill.refused"]);
    expect(store.egressDeclarations("ada")).toEqual([
      {
        skill: "github-issues",
        host: "api.github.com",
        header: "Authorization",
        format: "Bearer {secret}",
        secret: "GITHUB_TOKEN",
      },
    ]);
    expect(store.requiredEnv("ada")).toEqual([{ skill: "github-issues", name: "GITHUB_TOKEN" }]);
  });

  it("lists a skill as available once its program is in the cell image", async () => {
    const source = skillFolder("github-issues", { "SKILL.md": GITHUB });
    await store.install("ada", source, { approvedSha256: (await store.review(source)).sha256, by: "t" });
    writeFileSync(join(binDir, "gh-probe"), "#!/bin/sh\n");
    chmodSync(join(binDir, "gh-probe"), 0o755);
    expect(store.list("ada")).toEqual([expect.objectContaining({ name: "github-issues", available: true })]);
  });

  it("asks again for a new version, and replaces the folder whole", async () => {
    const source = skillFolder("github-issues", { "SKILL.md": GITHUB, "old.md": "old\n" });
    const first = await store.review(source);
    await store.install("ada", source, { approvedSha256: first.sha256, by: "t" });
    rmSync(join(source, "old.md"));
    writeFileSync(join(source, "new.md"), "new\n");
    await expect(store.update("ada", source, { approvedSha256: first.sha256, by: "t" })).rejects.toThrow(
      SkillRefusal,
    );
    expect(existsSync(join(root, "users/ada/skills/github-issues/old.md"))).toBe(true);

    const second = await store.review(source);
    const updated = await store.update("ada", source, { approvedSha256: second.sha256, by: "t" });
    expect(updated.sha256).toBe(second.sha256);
    expect(readdirSync(join(root, "users/ada/skills/github-issues")).sort()).toEqual(["SKILL.md", "new.md"]);
    expect(readdirSync(join(root, "users/ada")).sort()).toEqual(["skills", "skills.lock"]);
    expect(audit.list({ userId: "ada", action: "skill.updated" })[0]?.detail).toMatchObject({
      from: first.sha256,
      sha256: second.sha256,
    });
  });

  it("refuses to install over an installed skill, and removes one with its pin", async () => {
    const source = skillFolder("github-issues", { "SKILL.md": GITHUB });
    const { sha256 } = await store.review(source);
    await store.install("ada", source, { approvedSha256: sha256, by: "t" });
    await expect(store.install("ada", source, { approvedSha256: sha256, by: "t" })).rejects.toThrow(
      "github-issues is already installed: update it instead",
    );
    store.remove("ada", "github-issues", "t");
    expect(store.list("ada")).toEqual([]);
    expect(readdirSync(join(root, "users/ada/skills"))).toEqual([]);
    expect(store.egressDeclarations("ada")).toEqual([]);
    expect(audit.list({ userId: "ada", action: "skill.removed" })).toHaveLength(1);
  });

  it("waits for another process writing the same user's skills, and clears the lock of one that died", async () => {
    const source = skillFolder("github-issues", { "SKILL.md": GITHUB });
    const { sha256 } = await store.review(source);
    const lock = join(root, "users/ada/skills.writer.lock");
    mkdirSync(join(root, "users/ada"), { recursive: true });
    // Another process (the CLI, say) holds the lock, named as a writer names itself, for half a second.
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs"), os = require("node:os");
         const stat = fs.readFileSync("/proc/self/stat", "utf8");
         const ticks = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
         fs.writeFileSync(${JSON.stringify(lock)}, os.hostname() + "/" + process.pid + "/" + ticks, { flag: "wx" });
         setTimeout(() => { fs.writeFileSync(${JSON.stringify(join(root, "released"))}, ""); fs.unlinkSync(${JSON.stringify(lock)}); }, 500);`,
      ],
      { stdio: "ignore" },
    );
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    while (!existsSync(lock)) await new Promise((r) => setTimeout(r, 5));
    await store.install("ada", source, { approvedSha256: sha256, by: "t" });
    // Installed only once the other writer let go.
    expect(existsSync(join(root, "released"))).toBe(true);
    await exited;
    expect(existsSync(lock)).toBe(false);

    // A writer killed while holding it (its pid now gone) does not block the next one.
    writeFileSync(lock, `${hostname()}/${holder.pid}/1`);
    store.remove("ada", "github-issues", "t");
    expect(store.list("ada")).toEqual([]);
    expect(existsSync(lock)).toBe(false);
  });
});
