import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSkillArchive } from "./skill-archive.js";
import { readSkillFolder } from "./skill-folder.js";
import { SKILL_LIMITS } from "./skill-refusal.js";
import { reviewFiles } from "./skill-review.js";

let root: string;
const LONG = `references/${"deep-".repeat(30)}/notes.md`;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "skill-archive-"));
  const skill = join(root, "notion");
  mkdirSync(join(skill, LONG, ".."), { recursive: true });
  writeFileSync(
    join(skill, "SKILL.md"),
    "---\nname: notion\ndescription: Notion pages.\n---\nRead references.\n",
  );
  writeFileSync(join(skill, LONG), "ünïcode notes\n");
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("skill archives", () => {
  it("reads a .tgz with one top folder, long (pax) names included, to the same hash as the folder", async () => {
    const archive = join(root, "notion-1.2.tgz");
    execFileSync("tar", ["-C", root, "--format=pax", "-czf", archive, "notion"]);
    const packed = await readSkillArchive(archive, SKILL_LIMITS);
    expect(packed.folderName).toBe("notion");
    expect(packed.files.map((f) => f.path).sort()).toEqual([LONG, "SKILL.md"].sort());
    const fromFolder = reviewFiles("notion", await readSkillFolder(join(root, "notion"), SKILL_LIMITS));
    expect(reviewFiles(packed.folderName, packed.files).review.sha256).toBe(fromFolder.review.sha256);
  });

  it("takes the archive's name as the folder's when files sit at its root (`tar -C skill .`, GNU long names)", async () => {
    const archive = join(root, "notion.tar");
    execFileSync("tar", ["-C", join(root, "notion"), "--format=gnu", "-cf", archive, "."]);
    const packed = await readSkillArchive(archive, SKILL_LIMITS);
    expect(packed.folderName).toBe("notion");
    expect(packed.files.map((f) => f.path).sort()).toEqual([LONG, "SKILL.md"].sort());
  });

  it("refuses bytes that are not a tar", async () => {
    const fake = join(root, "fake.tar");
    writeFileSync(fake, Buffer.alloc(1024, 0x41));
    await expect(readSkillArchive(fake, SKILL_LIMITS)).rejects.toThrow("is not a valid tar archive");
  });
});
