import {
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConflictError, sha256Hex } from "../../core/index.js";
import { BrainFileRefusal } from "../brain-file-access.js";
import { readPlainFile, replacePlainFile } from "./forget-rewrite.js";

let base: string;
let brain: string;
let outside: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "ironclaw-rewrite-"));
  brain = join(base, "brain");
  outside = join(base, "outside");
  mkdirSync(join(brain, "notes"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.md"), "host file\n");
  writeFileSync(join(brain, "notes/a.md"), "old text\n");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("rewriting a brain file for a forget", () => {
  it("replaces the text, keeping the file's mode and owner", async () => {
    const file = join(brain, "notes/a.md");
    const owner = process.getuid?.() === 0 ? 4242 : (process.getuid?.() ?? 0);
    if (process.getuid?.() === 0) chownSync(file, owner, owner);
    const read = await readPlainFile(brain, "notes/a.md", 1024);
    await replacePlainFile(brain, "notes/a.md", "new text\n", read?.hash ?? "");
    expect(readFileSync(file, "utf8")).toBe("new text\n");
    expect(statSync(file).uid).toBe(owner);
  });

  it("refuses when the file changed since it was read, and leaves it as it is", async () => {
    const read = await readPlainFile(brain, "notes/a.md", 1024);
    writeFileSync(join(brain, "notes/a.md"), "old text\nappended meanwhile\n");
    await expect(replacePlainFile(brain, "notes/a.md", "new\n", read?.hash ?? "")).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(readFileSync(join(brain, "notes/a.md"), "utf8")).toBe("old text\nappended meanwhile\n");
  });

  it("never follows a link out of the brain, for a file or a directory on the way", async () => {
    // Positive control: the same paths through plain fs reach the host file.
    symlinkSync(join(outside, "secret.md"), join(brain, "notes/link.md"));
    symlinkSync(outside, join(brain, "away"));
    expect(readFileSync(join(brain, "away/secret.md"), "utf8")).toBe("host file\n");
    await expect(readPlainFile(brain, "notes/link.md", 1024)).rejects.toBeInstanceOf(BrainFileRefusal);
    await expect(readPlainFile(brain, "away/secret.md", 1024)).rejects.toBeInstanceOf(BrainFileRefusal);
    const hash = sha256Hex("host file\n");
    await expect(replacePlainFile(brain, "away/secret.md", "pwned\n", hash)).rejects.toBeInstanceOf(
      BrainFileRefusal,
    );
    await expect(replacePlainFile(brain, "notes/link.md", "pwned\n", hash)).rejects.toBeInstanceOf(
      BrainFileRefusal,
    );
    expect(readFileSync(join(outside, "secret.md"), "utf8")).toBe("host file\n");
  });
});
