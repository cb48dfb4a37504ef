import { ConflictError } from "../../core/index.js";
import type { WardenContext } from "../warden-context.js";
import { type BrainDeps, brainFileOp } from "./brain-access.js";

export interface PersonEdit {
  path: string;
  /** The file's new text; null deletes it. */
  content: string | null;
  /** Who decided it, as the soul guard and the audit record it (`user:<id>`, `admin:<id>`). */
  by: string;
  /** What the brain's history says caused the new state. */
  cause: string;
  /** More for the audit entry than the path and size. */
  detail?: Record<string, unknown>;
}

/**
 * Writes or deletes one file of a user's brain as a person's choice, the way the memory inspector does: refused
 * while the soul guard halts the user; a prompt file's new text becomes the version the guard compares the
 * agent's changes with (recorded before the write, undone if the write fails); the cell performs the write; the
 * audit keeps who did it; and the brain's history records the new state under `cause`.
 */
export async function editBrainAsPerson(
  ctx: BrainDeps & Pick<WardenContext, "audit" | "chat">,
  userId: string,
  edit: PersonEdit,
): Promise<void> {
  const halted = ctx.soul.halted(userId);
  if (halted) throw new ConflictError(halted);
  const undo = ctx.soul.recordPersonEdit(userId, edit.path, edit.content, edit.by);
  const op =
    edit.content === null
      ? ({ op: "delete", path: edit.path } as const)
      : ({ op: "write", path: edit.path, content: edit.content } as const);
  await brainFileOp(ctx, userId, op).catch((error) => {
    undo();
    throw error;
  });
  ctx.audit.record({
    userId,
    actor: edit.by,
    action: edit.content === null ? "brain.delete" : "brain.write",
    detail: {
      path: edit.path,
      ...(edit.content === null ? {} : { bytes: Buffer.byteLength(edit.content) }),
      ...edit.detail,
    },
  });
  ctx.chat.brainChanged(userId, edit.cause, [{ path: edit.path, content: edit.content }]);
}
