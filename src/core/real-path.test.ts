import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "./errors.js";
import { isWithin, realpathOfDeepestExisting } from "./real-path.js";

describe("realpathOfDeepestExisting", () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "ironclaw-realpath-")));
    mkdirSync(join(dir, "brain"));
    mkdirSync(join(dir, "outside"));
    writeFileSync(join(dir, "outside", "secret"), "x");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("returns an existing path's real path and appends what does not exist yet", () => {
    expect(realpathOfDeepestExisting(join(dir, "brain", "new", "note.md"))).toBe(
      join(dir, "brain", "new", "note.md"),
    );
  });

  it("follows a symlinked directory on the way", () => {
    symlinkSync(join(dir, "outside"), join(dir, "brain", "link"));
    expect(realpathOfDeepestExisting(join(dir, "brain", "link", "secret"))).toBe(
      join(dir, "outside", "secret"),
    );
  });

  it("follows a dangling symlink to where a write through it would land", () => {
    symlinkSync(join(dir, "outside", "not-yet"), join(dir, "brain", "a.md"));
    expect(realpathOfDeepestExisting(join(dir, "brain", "a.md"))).toBe(join(dir, "outside", "not-yet"));
  });

  it("refuses a symlink loop", () => {
    symlinkSync(join(dir, "brain", "b"), join(dir, "brain", "a"));
    symlinkSync(join(dir, "brain", "a"), join(dir, "brain", "b"));
    expect(() => realpathOfDeepestExisting(join(dir, "brain", "a", "x"))).toThrow(InvalidInputError);
  });
});

describe("isWithin", () => {
  it("accepts the root and what is below it, nothing else", () => {
    expect(isWithin("/mnt/brain", "/mnt/brain")).toBe(true);
    expect(isWithin("/mnt/brain", "/mnt/brain/logs/a.md")).toBe(true);
    expect(isWithin("/mnt/brain", "/mnt/brainy")).toBe(false);
    expect(isWithin("/mnt/brain", "/mnt")).toBe(false);
  });
});
