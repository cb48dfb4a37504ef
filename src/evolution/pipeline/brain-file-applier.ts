import { lstat, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { InvalidInputError, sha256Hex } from "../../core/index.js";
import { BrainLayout } from "../../memory/index.js";
import type { ApplyResult, PromotionApplier, PromotionChange, RollbackResult } from "./promotion-applier.js";

/** The only files this applier writes: instruction files of the brain (instructions/<name>.md). */
const INSTRUCTION_FILE = /^instructions\/[A-Za-z0-9][A-Za-z0-9._-]*\.md$/;

/**
 * Writes promoted changes straight into a brain directory, for a host with no warden running (the CLI). It
 * writes only instructions/<name>.md, never through a symbolic link, replaces a file whole (write aside, then
 * rename), and only while the file holds exactly the text the change was prepared against. With a warden, its
 * applier is used instead, so the soul guard and the brain's history see the change.
 */
export class BrainFileApplier implements PromotionApplier {
  private readonly brain: BrainLayout;

  constructor(brainDir: string) {
    this.brain = BrainLayout.open(brainDir);
  }

  async read(path: string): Promise<string | null> {
    const absolute = await this.place(path);
    try {
      return await readFile(absolute, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async apply(change: PromotionChange): Promise<ApplyResult> {
    const ref = `file:${change.path}@sha256:${change.after_sha256}`;
    const now = await this.read(change.path);
    if ((now === null ? null : sha256Hex(now)) !== change.before_sha256)
      return {
        applied: false,
        reason: `${change.path} changed since the promotion was prepared`,
        rollback_ref: ref,
      };
    await this.replace(change.path, change.after);
    return { applied: true, rollback_ref: ref };
  }

  async rollback(_ref: string, change: PromotionChange): Promise<RollbackResult> {
    const now = await this.read(change.path);
    if (now === null || sha256Hex(now) !== change.after_sha256)
      return {
        rolled_back: false,
        reason: `${change.path} no longer holds what the promotion wrote; edit it by hand`,
      };
    if (change.before === null) await unlink(await this.place(change.path));
    else await this.replace(change.path, change.before);
    return { rolled_back: true };
  }

  private async place(path: string): Promise<string> {
    if (!INSTRUCTION_FILE.test(path))
      throw new InvalidInputError(
        "change.path",
        `${JSON.stringify(path)} is not an instruction file (instructions/<name>.md)`,
      );
    const absolute = this.brain.resolve(path, "change.path");
    const info = await lstat(absolute).catch(() => undefined);
    if (info && !info.isFile())
      throw new InvalidInputError(
        "change.path",
        `${JSON.stringify(path)} is not a regular file in the brain`,
      );
    return absolute;
  }

  private async replace(path: string, text: string): Promise<void> {
    const absolute = await this.place(path);
    await mkdir(dirname(absolute), { recursive: true });
    const aside = `${absolute}.${process.pid}.promotion`;
    await writeFile(aside, text, { flag: "wx" });
    await rename(aside, absolute);
  }
}
