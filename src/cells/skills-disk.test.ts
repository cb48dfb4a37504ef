import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { microvmArgs } from "./backends/microvm-command.js";
import { imagePaths } from "./image/image-paths.js";
import { ensureSkillsDisk } from "./skills-disk.js";

// The skills disk a microVM cell gets: made with the real mkfs.ext4, read back with debugfs (e2fsprogs, as the
// image build and brain disks need).

let userDir: string;
beforeEach(() => {
  userDir = mkdtempSync(join(tmpdir(), "ironclaw-skills-disk-"));
});
afterEach(() => rmSync(userDir, { recursive: true, force: true }));

const disks = () => readdirSync(userDir).filter((n) => n.startsWith("skills-"));
const cat = (file: string, path: string) =>
  execFileSync("debugfs", ["-R", `cat ${path}`, file], { stdio: ["ignore", "pipe", "ignore"] }).toString();

function install(name: string, body: string): void {
  mkdirSync(join(userDir, "skills", name, "scripts"), { recursive: true, mode: 0o755 });
  writeFileSync(join(userDir, "skills", name, "SKILL.md"), body, { mode: 0o644 });
  writeFileSync(join(userDir, "skills", name, "scripts", "run.sh"), "echo hi\n", { mode: 0o644 });
}

describe("a microVM cell's skills disk", () => {
  it("is none for a user without skills", async () => {
    expect(await ensureSkillsDisk(userDir)).toBeUndefined();
    mkdirSync(join(userDir, "skills"));
    expect(await ensureSkillsDisk(userDir)).toBeUndefined();
    expect(disks()).toEqual([]);
  });

  it("holds the installed skills' files, is made again only when the folder changed, and drops the old one", async () => {
    install("gh-issues", "---\nname: gh-issues\ndescription: Files issues\n---\nUse gh.\n");
    const first = await ensureSkillsDisk(userDir);
    if (!first) throw new Error("no disk for a user with a skill");
    expect(first.file).toBe(join(userDir, `skills-${first.digest}.ext4`));
    expect(first.digest).toMatch(/^[0-9a-f]{16}$/);
    expect(lstatSync(first.file).mode & 0o777).toBe(0o600);
    expect(cat(first.file, "/gh-issues/SKILL.md")).toContain("description: Files issues");
    expect(cat(first.file, "/gh-issues/scripts/run.sh")).toBe("echo hi\n");
    const listing = execFileSync("debugfs", ["-R", "ls -l /", first.file], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    expect(listing.toString()).toContain("gh-issues");
    expect(listing.toString()).not.toContain("lost+found");

    const made = lstatSync(first.file).mtimeMs;
    expect(await ensureSkillsDisk(userDir)).toEqual(first);
    expect(lstatSync(first.file).mtimeMs).toBe(made);

    install("calendar", "---\nname: calendar\ndescription: Dates\n---\n");
    const second = await ensureSkillsDisk(userDir);
    expect(second?.digest).not.toBe(first.digest);
    expect(disks()).toEqual([`skills-${second?.digest}.ext4`]);
    expect(cat(second?.file ?? "", "/calendar/SKILL.md")).toContain("name: calendar");

    rmSync(join(userDir, "skills", "gh-issues"), { recursive: true });
    rmSync(join(userDir, "skills", "calendar"), { recursive: true });
    expect(await ensureSkillsDisk(userDir)).toBeUndefined();
    expect(disks()).toEqual([]);
  });

  it("is attached read-only with its own serial, and the guest is told to wait for it", () => {
    const base = {
      paths: imagePaths("/img"),
      accel: "tcg" as const,
      memoryMiB: 256,
      cpus: 1,
      userId: "ada",
      handler: "agent",
      brainFile: "/u/ada/brain.ext4",
    };
    const without = microvmArgs(base).join(" ");
    expect(without).not.toContain("skills");
    const args = microvmArgs({ ...base, skillsFile: "/u/ada/skills-0123456789abcdef.ext4" });
    expect(args).toContain(
      "id=skills,file=/u/ada/skills-0123456789abcdef.ext4,format=raw,if=none,readonly=on",
    );
    expect(args).toContain("virtio-blk-device,drive=skills,serial=ironclaw-skills");
    expect(args[args.indexOf("-append") + 1]).toMatch(/(^| )ironclaw\.skills=1( |$)/);
  });
});
