import { aString } from "../common.js";

/**
 * A path inside the brain, written relative to `/mnt/brain` (`instructions/style.md`; `.` is the brain
 * itself). The warden sends these to the inmate, so anything that could leave the brain is refused here,
 * before the inmate's own path policy sees it.
 */
export const brainPath = aString()
  .min(1, "must not be empty")
  .max(1024, "must be at most 1024 characters")
  .refine((p) => !p.startsWith("/"), "must be relative to the brain, not absolute")
  .refine((p) => !p.split("/").includes(".."), "must not contain a .. segment")
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and control characters are what we refuse
  .refine((p) => !/[\\\u0000-\u001f]/.test(p), "must not contain backslashes or control characters");

/** A markdown file in the brain, such as a persona file. */
export const brainMarkdownPath = brainPath.refine((p) => p.endsWith(".md"), "must be a markdown file (.md)");

/** An absolute host or guest path such as `/tmp/workspace`; `..` segments are refused so it names one place. */
export const absolutePath = aString()
  .refine((p) => p.startsWith("/"), "must be an absolute path starting with /")
  .refine((p) => !p.split("/").includes(".."), "must not contain a .. segment");
