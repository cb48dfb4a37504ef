import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countInstalledSkills, ensureSkillsDir } from "./skills-dir.js";

let userDir: string;
beforeEach(() => {
  userDir = mkdtempSync(join(tmpdir(), "ironclaw-skills-dir-"));
});
afterEach(() => rmSync(userDir, { recursive: true, force: true }));

describe("a user's installed-skills folder", () => {
  it("is created empty and readable by the cell's uid when the user has none yet", async () => {
    const dir = await ensureSkillsDir(userDir);
    expect(dir).toBe(join(userDir, "skills"));
    expect(lstatSync(dir).mode & 0o777).toBe(0o755);
    expect(await countInstalledSkills(userDir)).toBe(0);
  });

  it("is refused when it is a link, which would show the cell whatever it points at", async () => {
    mkdirSync(join(userDir, "elsewhere"));
    symlinkSync(join(userDir, "elsewhere"), join(userDir, "skills"));
    await expect(ensureSkillsDir(userDir)).rejects.toThrow(/skills is a symbolic link/);
  });

  it("counts skill folders only, and a missing folder as none without creating it", async () => {
    expect(await countInstalledSkills(userDir)).toBe(0);
    expect(existsSync(join(userDir, "skills"))).toBe(false);
    for (const name of ["weather", "notes", ".partial"])
      mkdirSync(join(userDir, "skills", name), { recursive: true });
    writeFileSync(join(userDir, "skills", "README"), "");
    expect(await countInstalledSkills(userDir)).toBe(2);
  });
});
