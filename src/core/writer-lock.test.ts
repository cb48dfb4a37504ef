import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConflictError } from "./errors.js";
import { currentOwner } from "./process-owner.js";
import { withWriterLock } from "./writer-lock.js";

const lockPath = () => join(mkdtempSync(join(tmpdir(), "writer-lock-")), ".writer.lock");

describe("the writer lock", () => {
  it("names its holder while the work runs and is gone after, even when the work throws", () => {
    const path = lockPath();
    expect(withWriterLock(path, () => readFileSync(path, "utf8"))).toBe(currentOwner());
    expect(existsSync(path)).toBe(false);
    expect(() =>
      withWriterLock(path, () => {
        throw new Error("work failed");
      }),
    ).toThrow("work failed");
    expect(existsSync(path)).toBe(false);
  });

  it("takes over a lock whose holder died", () => {
    const path = lockPath();
    // A pid no process has: the kernel's pid_max is far below it.
    writeFileSync(path, `${hostname()}/999999999/12345`);
    expect(withWriterLock(path, () => "ran")).toBe("ran");
    expect(existsSync(path)).toBe(false);
  });

  it("waits for a live holder and gives up with a conflict naming it", () => {
    const path = lockPath();
    writeFileSync(path, currentOwner());
    let refusal: unknown;
    try {
      withWriterLock(path, () => "ran", { timeoutMs: 50, what: "the test state" });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ConflictError);
    expect((refusal as Error).message).toBe(`the test state is being written by ${currentOwner()}`);
    expect(readFileSync(path, "utf8")).toBe(currentOwner());
  });
});
