import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditStore, migrateAuditTables, SkillRefusal, SkillStore } from "../../src/warden/index.js";

const CORPUS = new URL("./corpus/", import.meta.url).pathname;
const SKILL_MD = (name: string) => `---\nname: ${name}\ndescription: A skill.\n---\nbody\n`;

let root: string;
let db: Database.Database;
let audit: AuditStore;
let store: SkillStore;
const lockFile = () => join(root, "users/ada/skills.lock");

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "skill-corpus-"));
  db = new Database(join(root, "host.db"));
  migrateAuditTables(db);
  audit = new AuditStore(db);
  store = new SkillStore({ usersDir: join(root, "users"), audit: (e) => audit.record(e) });
});

afterAll(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

/** A skill folder under the test's root with a valid SKILL.md and these extra files. */
function folder(name: string, files: Record<string, string | Buffer> = {}): string {
  const dir = join(root, "src", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), SKILL_MD(name));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

function tarOf(dir: string, file: string, members: string[], extra: string[] = []): string {
  execFileSync("tar", ["-C", dir, ...extra, "-cf", file, ...members]);
  return file;
}

/** Install is refused with this reason; nothing lands, the lock is as it was, and the refusal is audited. */
async function expectRefused(source: string, reason: RegExp | string): Promise<void> {
  const lockBefore = existsSync(lockFile()) ? readFileSync(lockFile(), "utf8") : undefined;
  const skillsBefore = existsSync(join(root, "users/ada/skills"))
    ? readdirSync(join(root, "users/ada/skills"))
    : [];
  const refusals = audit.list({ userId: "ada", action: "skill.refused" }).length;
  await expect(store.review(source)).rejects.toThrow(SkillRefusal);
  await expect(store.review(source)).rejects.toThrow(reason);
  await expect(store.install("ada", source, { approvedSha256: "f".repeat(64), by: "test" })).rejects.toThrow(
    reason,
  );
  expect(existsSync(lockFile()) ? readFileSync(lockFile(), "utf8") : undefined).toBe(lockBefore);
  expect(readdirSync(join(root, "users/ada/skills"))).toEqual(skillsBefore);
  expect(readdirSync(join(root, "users/ada")).filter((f) => f.includes("staging"))).toEqual([]);
  expect(audit.list({ userId: "ada", action: "skill.refused" })).toHaveLength(refusals + 1);
}

describe("a malicious skill corpus", () => {
  it("installs fake prerequisites as text: nothing runs, no host is reachable, the installer is listed as ignored", async () => {
    const source = join(CORPUS, "fake-prerequisites");
    const mark = join(root, "prereq-ran");
    const review = await store.review(source);
    expect(review.asks.hosts).toEqual([]);
    expect(review.asks.secrets).toEqual([]);
    expect(review.asks.ignoredInstall).toEqual([
      expect.stringMatching(/^download https:\/\/evil\.example\/openclaw-core\.tgz \(not run: /),
    ]);
    const skill = await store.install("ada", source, { approvedSha256: review.sha256, by: "test" });
    expect(skill.name).toBe("fake-prerequisites");
    expect(existsSync(mark)).toBe(false);
    expect(store.egressDeclarations("ada").filter((d) => d.skill === "fake-prerequisites")).toEqual([]);
    // Positive control: the script does leave its mark when something does run it.
    execFileSync("sh", [join(skill.location, "scripts/prereq.sh")], { env: { PREREQ_MARK: mark } });
    expect(existsSync(mark)).toBe(true);
  });

  it("gives a skill that uses $OPENAI_API_KEY without declaring it no such variable", async () => {
    const source = join(CORPUS, "undeclared-env");
    expect(readFileSync(join(source, "SKILL.md"), "utf8")).toContain("$OPENAI_API_KEY");
    const review = await store.review(source);
    expect(review.asks).toMatchObject({ env: [], secrets: [], hosts: [] });
    await store.install("ada", source, { approvedSha256: review.sha256, by: "test" });
    expect(store.requiredEnv("ada").filter((e) => e.skill === "undeclared-env")).toEqual([]);
  });

  it("refuses binaries: NUL bytes and invalid UTF-8", async () => {
    await expectRefused(
      folder("nul-bytes", { "bin/tool": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]) }),
      /bin\/tool: is not a text file/,
    );
    await expectRefused(
      folder("bad-utf8", { "notes.md": Buffer.from([0x68, 0xff, 0xfe, 0x69]) }),
      /notes\.md: is not a text file/,
    );
  });

  it("refuses symbolic links, to /etc/passwd and to ../../", async () => {
    const passwd = folder("link-passwd");
    symlinkSync("/etc/passwd", join(passwd, "references.md"));
    await expectRefused(passwd, "references.md: is a symbolic link (to /etc/passwd)");
    const up = folder("link-up");
    symlinkSync("../../", join(up, "escape"));
    await expectRefused(up, "escape: is a symbolic link (to ../../)");
    await expectRefused(
      tarOf(join(root, "src"), join(root, "link-passwd.tar"), ["link-passwd"]),
      "is a symbolic link (to /etc/passwd)",
    );
  });

  it("refuses hard links, in a folder and in a tarball", async () => {
    const dir = folder("hard-link", { "a.md": "text\n" });
    linkSync(join(dir, "a.md"), join(dir, "b.md"));
    await expectRefused(dir, /is a hard link/);
    await expectRefused(
      tarOf(join(root, "src"), join(root, "hard-link.tar"), ["hard-link"]),
      /hard-link\/[ab]\.md: is a hard link \(to hard-link\/[ab]\.md\)/,
    );
  });

  it("refuses a pipe", async () => {
    const dir = folder("fifo");
    execFileSync("mkfifo", [join(dir, "pipe")]);
    await expectRefused(dir, "pipe: is a device, pipe or socket");
  });

  it("refuses path traversal and absolute paths in a tarball", async () => {
    const dir = folder("traversal");
    writeFileSync(join(root, "src", "x"), "outside\n");
    await expectRefused(
      tarOf(dir, join(root, "traversal.tar"), ["SKILL.md", "../x"], ["-P"]),
      "../x: escapes the skill's folder (..)",
    );
    await expectRefused(
      tarOf(dir, join(root, "absolute.tar"), ["SKILL.md", join(root, "src", "x")], ["-P"]),
      /is an absolute path/,
    );
    expect(existsSync(join(root, "users/ada/x"))).toBe(false);
  });

  it("refuses 60 MB, in a folder before reading it and as a gzip bomb", async () => {
    const big = folder("sixty-mb");
    writeFileSync(join(big, "data.txt"), Buffer.alloc(60 * 1024 * 1024, 0x61));
    await expectRefused(big, "holds more than 50 MB in all");
    const bomb = join(root, "sixty-mb.tar.gz");
    writeFileSync(
      bomb,
      gzipSync(readFileSync(tarOf(join(root, "src"), join(root, "sixty-mb.tar"), ["sixty-mb"]))),
    );
    rmSync(join(root, "sixty-mb.tar"));
    await expectRefused(bomb, "holds more than 50 MB in all");
  });

  it("refuses a folder without SKILL.md, and a name that is not the folder's", async () => {
    const none = join(root, "src", "no-skill-md");
    mkdirSync(none, { recursive: true });
    writeFileSync(join(none, "README.md"), "hi\n");
    await expectRefused(none, "has no SKILL.md at its root");
    const renamed = folder("renamed");
    writeFileSync(join(renamed, "SKILL.md"), SKILL_MD("other-name"));
    await expectRefused(
      renamed,
      'SKILL.md: is not a valid skill: $.name: must equal the skill\'s folder name ("renamed")',
    );
  });

  it("installs a draft the agent wrote in its brain only through the same checks", async () => {
    const drafts = join(root, "users/ada/brain/skills");
    cpSync(folder("brain-draft"), join(drafts, "brain-draft"), { recursive: true });
    const review = await store.review(join(drafts, "brain-draft"));
    await store.install("ada", join(drafts, "brain-draft"), { approvedSha256: review.sha256, by: "test" });
    expect(store.list("ada").map((s) => s.name)).toContain("brain-draft");
    cpSync(folder("brain-link"), join(drafts, "brain-link"), { recursive: true });
    symlinkSync(join(root, "host.db"), join(drafts, "brain-link", "notes.md"));
    await expectRefused(join(drafts, "brain-link"), "notes.md: is a symbolic link");
  });
});
