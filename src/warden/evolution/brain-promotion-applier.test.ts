import { describe, expect, it } from "vitest";
import { InvalidInputError, sha256Hex } from "../../core/index.js";
import type { PromotionChange } from "../../evolution/index.js";
import { type BrainEditor, userOfRollbackRef, WardenPromotionApplier } from "./brain-promotion-applier.js";

const ID = "6d2df7a4-aa4f-5eac-a6d7-4833722b9674";
const PATH = "instructions/skill-file.md";

/** A brain held in memory, editing as the warden's editor does: each edit kept with who and why. */
function memoryBrain(files: Record<string, string>) {
  const brain = new Map(Object.entries(files));
  const edits: Array<{ path: string; content: string | null; by: string; cause: string }> = [];
  const editor: BrainEditor = {
    read: async (_user, path) => brain.get(path),
    edit: async (_user, edit) => {
      edits.push({ path: edit.path, content: edit.content, by: edit.by, cause: edit.cause });
      if (edit.content === null) brain.delete(edit.path);
      else brain.set(edit.path, edit.content);
    },
  };
  return { brain, edits, editor };
}

function change(before: string | null, after: string, path = PATH): PromotionChange {
  return {
    proposal_id: ID,
    path,
    before,
    before_sha256: before === null ? null : sha256Hex(before),
    after,
    after_sha256: sha256Hex(after),
  };
}

describe("promotion into a user's brain through the warden", () => {
  it("writes as the admin's choice with a cause naming the proposal, and its reference names the user", async () => {
    const { brain, edits, editor } = memoryBrain({ [PATH]: "a\n" });
    const applier = new WardenPromotionApplier(editor, "ada", "boss");
    const result = await applier.apply(change("a\n", "a\nb\n"));
    expect(result.applied).toBe(true);
    expect(userOfRollbackRef(result.rollback_ref)).toBe("ada");
    expect(brain.get(PATH)).toBe("a\nb\n");
    expect(edits).toEqual([
      { path: PATH, content: "a\nb\n", by: "admin:boss", cause: `evolution promotion ${ID}` },
    ]);
  });

  it("writes nothing when the file changed since the promotion was prepared", async () => {
    const { brain, edits, editor } = memoryBrain({ [PATH]: "edited by ada\n" });
    const result = await new WardenPromotionApplier(editor, "ada", "boss").apply(change("a\n", "a\nb\n"));
    expect(result).toMatchObject({ applied: false });
    expect(result.reason).toContain("changed since the promotion was prepared");
    expect(brain.get(PATH)).toBe("edited by ada\n");
    expect(edits).toEqual([]);
  });

  it("rolls back only while the file holds what the promotion wrote; a created file is deleted", async () => {
    const { brain, edits, editor } = memoryBrain({ [PATH]: "a\nb\nmore by ada\n" });
    const applier = new WardenPromotionApplier(editor, "ada", "boss");
    const refused = await applier.rollback("ref", change("a\n", "a\nb\n"));
    expect(refused.rolled_back).toBe(false);
    expect(brain.get(PATH)).toBe("a\nb\nmore by ada\n");

    brain.set(PATH, "# new\n");
    expect(await applier.rollback("ref", change(null, "# new\n"))).toEqual({ rolled_back: true });
    expect(brain.has(PATH)).toBe(false);
    expect(edits).toEqual([
      { path: PATH, content: null, by: "admin:boss", cause: `evolution rollback ${ID}` },
    ]);
  });

  it("refuses any file but an instruction file, naming the field", async () => {
    const { editor } = memoryBrain({});
    const applier = new WardenPromotionApplier(editor, "ada", "boss");
    await expect(applier.apply(change(null, "x", "soul.md"))).rejects.toThrow(InvalidInputError);
    await expect(applier.read("instructions/../soul.md")).rejects.toThrow(/change\.path/);
  });

  it("reads no user from a reference another applier wrote", () => {
    expect(userOfRollbackRef(`file:${PATH}@sha256:${"0".repeat(64)}`)).toBeUndefined();
  });
});
