import { InvalidInputError, NotFoundError, sha256Hex } from "../../core/index.js";
import { BrainFileRefusal } from "../brain-file-access.js";
import { listBrainFiles } from "../brain-files.js";
import type { BrainLayout } from "../brain-layout.js";
import { DEFAULT_MAX_FILE_BYTES } from "../index/index.js";
import { quoteForBrain } from "../transcript-text.js";
import { headingTrailsOf } from "./forget-match.js";
import { isForgettablePath } from "./forget-plan.js";
import { readPlainFile, replacePlainFile } from "./forget-rewrite.js";

/** "That's wrong, it's X": the old text as the brain has it, what replaces it, and optionally the one file. */
export interface Correction {
  old: string;
  text: string;
  path?: string;
}

/** One place corrected, described without its text. */
export interface CorrectedPlace {
  path: string;
  /** 1-based line where the old text started. */
  line: number;
  headings: string[];
  oldHash: string;
  newHash: string;
}

export interface CorrectionResult {
  places: CorrectedPlace[];
  paths: string[];
}

/** More places than this means the old text is too vague to replace blindly. */
export const MAX_CORRECTED_PLACES = 100;

/**
 * Replaces a wrong fact where it stands, in every file that states it (or in `path`), instead of appending a
 * contradiction for retrieval to trip over. The old text is matched exactly, or else ignoring case and spacing.
 * The new text cannot add a heading or open a fence (see quoteForBrain); within one line it stays one line.
 */
export async function correctFact(
  brain: BrainLayout,
  correction: Correction,
  maxFileBytes = DEFAULT_MAX_FILE_BYTES,
): Promise<CorrectionResult> {
  const old = correction.old.trim();
  if (old.length < 3) throw new InvalidInputError("old", "must be at least 3 characters of the wrong text");
  if (old.length > 2000) throw new InvalidInputError("old", "must be at most 2000 characters");
  let replacement = quoteForBrain(correction.text);
  if (replacement === "") throw new InvalidInputError("text", "must not be empty");
  if (!old.includes("\n")) replacement = replacement.replace(/\s*\n\s*/g, " ");
  if (correction.path !== undefined) brain.resolve(correction.path, "path");
  if (correction.path !== undefined && !isForgettablePath(correction.path))
    throw new InvalidInputError("path", `${correction.path} is edited by its owner, not corrected by memory`);
  const paths =
    correction.path !== undefined
      ? [correction.path]
      : (await listBrainFiles(brain)).files.map((f) => f.path).filter(isForgettablePath);
  const files: Array<{ path: string; text: string; hash: string }> = [];
  for (const path of paths) {
    const file = await readPlainFile(brain.root, path, maxFileBytes).catch((error: unknown) => {
      if (error instanceof BrainFileRefusal) return undefined;
      throw error;
    });
    if (file) files.push({ path, ...file });
  }
  const exact = new RegExp(escapeRegExp(old), "g");
  const loose = new RegExp(old.split(/\s+/).map(escape).join("\\s+"), "gi");
  let pattern = exact;
  if (!files.some((f) => f.text.includes(old))) pattern = loose;
  const result: CorrectionResult = { places: [], paths: [] };
  const rewrites: Array<{ path: string; hash: string; text: string }> = [];
  for (const file of files) {
    pattern.lastIndex = 0;
    const trails = headingTrailsOf(file.text.split("\n"));
    let found = false;
    const text = file.text.replace(pattern, (match: string, offset: number) => {
      found = true;
      const line = file.text.slice(0, offset).split("\n").length;
      result.places.push({
        path: file.path,
        line,
        headings: trails[line - 1] ?? [],
        oldHash: `sha256:${sha256Hex(match)}`,
        newHash: `sha256:${sha256Hex(replacement)}`,
      });
      return replacement;
    });
    if (found) rewrites.push({ path: file.path, hash: file.hash, text });
  }
  if (result.places.length === 0)
    throw new NotFoundError(
      "text to correct",
      `${JSON.stringify(old.slice(0, 80))} (recall it first to see the exact words)`,
    );
  if (result.places.length > MAX_CORRECTED_PLACES)
    throw new InvalidInputError(
      "old",
      `matches ${result.places.length} places (at most ${MAX_CORRECTED_PLACES}); give more of the text or a path`,
    );
  for (const file of rewrites) await replacePlainFile(brain.root, file.path, file.text, file.hash);
  result.paths = rewrites.map((f) => f.path);
  return result;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
