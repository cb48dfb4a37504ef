import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportBrainState, formatStateKey, importBrainState, parseStateKey } from "./brain-export.js";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-brain-export-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a user's chain of exported states", () => {
  it("goes on across exports on one host, and on another host after an import", async () => {
    const homeA = join(root, "a");
    const homeB = join(root, "b");
    const brain = join(root, "brain");
    mkdirSync(brain);
    writeFileSync(join(brain, "memory.md"), "one\n");
    const evidence = join(root, "evidence");
    const first = await exportBrainState({
      home: homeA,
      user: "alice",
      brainDir: brain,
      evidenceDir: evidence,
    });
    writeFileSync(join(brain, "memory.md"), "two\n");
    const second = await exportBrainState({
      home: homeA,
      user: "alice",
      brainDir: brain,
      evidenceDir: evidence,
    });
    expect([first.packed.ratchetStep, second.packed.ratchetStep]).toEqual([0, 1]);
    expect(second.parentStateId).toBe(first.packed.stateId);
    expect(second.key).toEqual(first.sealed.nextKey);
    expect(statSync(join(homeA, "attest", "chains", "alice.json")).mode & 0o777).toBe(0o600);

    const restored = join(homeB, "users", "alice", "brain");
    await importBrainState({
      home: homeB,
      user: "alice",
      bundleDir: second.bundleDir,
      key: second.key,
      targetDir: restored,
    });
    expect(readFileSync(join(restored, "memory.md"), "utf8")).toBe("two\n");
    // Host B's wrap key differs from A's, yet the chain goes on with the key A would have used next.
    const third = await exportBrainState({
      home: homeB,
      user: "alice",
      brainDir: restored,
      evidenceDir: evidence,
    });
    expect(third.packed.ratchetStep).toBe(2);
    expect(third.parentStateId).toBe(second.packed.stateId);
    expect(third.key).toEqual(second.sealed.nextKey);
  });

  it("a user name that could leave the chains folder is refused naming the field", async () => {
    await expect(
      exportBrainState({ home: root, user: "../x", brainDir: root, evidenceDir: join(root, "e") }),
    ).rejects.toThrow(/^user: must be 1-64 letters/);
  });

  it("a state key round-trips as base64url, and anything else is refused naming the field", () => {
    const key = Buffer.alloc(32, 7);
    expect(parseStateKey(`${formatStateKey(key)}\n`)).toEqual(key);
    expect(() => parseStateKey("c2hvcnQ", "--key-file")).toThrow(
      /^--key-file: must be a state key: 32 bytes/,
    );
    expect(() => parseStateKey("not a key!", "--key-file")).toThrow(/--key-file/);
  });
});
