import { InvalidInputError, sha256Hex } from "../../core/index.js";
import type {
  ApplyResult,
  PromotionApplier,
  PromotionChange,
  RollbackResult,
} from "../../evolution/index.js";

/** The only files a promotion writes: instruction files of the brain, which enter the system prompt. */
const INSTRUCTION_FILE = /^instructions\/[A-Za-z0-9][A-Za-z0-9._-]*\.md$/;
const REF = /^warden-brain:([^:]+):(.+)@sha256:([0-9a-f]{64})$/;

/**
 * How the warden reads and edits a user's brain as a person does (the memory inspector's path: the user's cell
 * writes, the soul guard takes a prompt file's new text as approved, the audit and the brain's history record it).
 */
export interface BrainEditor {
  /** The file's text, or undefined when it does not exist. */
  read(userId: string, path: string): Promise<string | undefined>;
  /** Writes (content null: deletes) the file as `by` chose it; the brain's history records it under `cause`. */
  edit(
    userId: string,
    edit: {
      path: string;
      content: string | null;
      by: string;
      cause: string;
      detail?: Record<string, unknown>;
    },
  ): Promise<void>;
}

/** The rollback reference of a write into a user's brain: whose brain, which file, what was written. */
function refOf(userId: string, change: PromotionChange): string {
  return `warden-brain:${encodeURIComponent(userId)}:${change.path}@sha256:${change.after_sha256}`;
}

/** The user whose brain a rollback reference names; undefined for a reference another applier wrote. */
export function userOfRollbackRef(ref: string): string | undefined {
  const match = REF.exec(ref);
  return match ? decodeURIComponent(match[1] as string) : undefined;
}

/**
 * Promotes evolution proposals into one user's brain through the warden, as a person's edit in the memory
 * inspector is made: the user's cell writes the file, the soul guard takes the new text as the approved version
 * (an admin chose it), and the brain's history records the state with the cause "evolution promotion <id>"
 * (a rollback: "evolution rollback <id>"). A change is written only while the file holds the text it was
 * prepared against, and rolled back only while it holds what the promotion wrote.
 */
export class WardenPromotionApplier implements PromotionApplier {
  constructor(
    private readonly editor: BrainEditor,
    readonly userId: string,
    private readonly operator: string,
  ) {}

  async read(path: string): Promise<string | null> {
    checkPath(path);
    return (await this.editor.read(this.userId, path)) ?? null;
  }

  async apply(change: PromotionChange): Promise<ApplyResult> {
    const rollback_ref = refOf(this.userId, change);
    const now = await this.read(change.path);
    if ((now === null ? null : sha256Hex(now)) !== change.before_sha256)
      return {
        applied: false,
        reason: `${change.path} in ${this.userId}'s brain changed since the promotion was prepared`,
        rollback_ref,
      };
    await this.edit(change, change.after, `evolution promotion ${change.proposal_id}`);
    return { applied: true, rollback_ref };
  }

  async rollback(_ref: string, change: PromotionChange): Promise<RollbackResult> {
    const now = await this.read(change.path);
    if (now === null || sha256Hex(now) !== change.after_sha256)
      return {
        rolled_back: false,
        reason: `${change.path} in ${this.userId}'s brain no longer holds what the promotion wrote; edit it by hand`,
      };
    await this.edit(change, change.before, `evolution rollback ${change.proposal_id}`);
    return { rolled_back: true };
  }

  private edit(change: PromotionChange, content: string | null, cause: string): Promise<void> {
    return this.editor.edit(this.userId, {
      path: change.path,
      content,
      by: `admin:${this.operator}`,
      cause,
      detail: { cause },
    });
  }
}

function checkPath(path: string): void {
  if (!INSTRUCTION_FILE.test(path))
    throw new InvalidInputError(
      "change.path",
      `${JSON.stringify(path)} is not an instruction file (instructions/<name>.md)`,
    );
}
