import { IronclawError } from "../../core/index.js";

/**
 * A skill the warden will not review or install, with the reason a person can act on. `path` names the file of
 * the skill at fault, when there is one.
 */
export class SkillRefusal extends IronclawError {
  override readonly name = "SkillRefusal";
  constructor(
    readonly reason: string,
    readonly path?: string,
  ) {
    super("skill_refused", path === undefined ? reason : `${path}: ${reason}`);
  }
}

/** How much a skill may hold: text for a model to read, not a payload. */
export interface SkillLimits {
  maxTotalBytes: number;
  maxFiles: number;
  maxDepth: number;
}

export const SKILL_LIMITS: SkillLimits = {
  maxTotalBytes: 50 * 1024 * 1024,
  maxFiles: 1000,
  maxDepth: 16,
};

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Text is valid UTF-8 without NUL bytes; anything else is a binary, which a skill may not carry. */
export function checkText(path: string, bytes: Buffer): void {
  let valid = !bytes.includes(0);
  if (valid) {
    try {
      STRICT_UTF8.decode(bytes);
    } catch {
      valid = false;
    }
  }
  if (!valid)
    throw new SkillRefusal(
      "is not a text file (NUL bytes or invalid UTF-8): a skill holds text only; programs come from the cell image",
      path,
    );
}

/**
 * A file's path inside the skill, `/`-separated: relative, no `..`, no control characters or backslashes (which
 * would read differently on another system or in a terminal). `.` and empty segments are dropped.
 */
export function skillPath(raw: string): string {
  if (raw.startsWith("/"))
    throw new SkillRefusal("is an absolute path: a skill's files stay inside its folder", raw);
  const segments = raw.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) throw new SkillRefusal("escapes the skill's folder (..)", raw);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f\\]/.test(raw))
    throw new SkillRefusal("has a control character or backslash in its name", JSON.stringify(raw));
  if (segments.length === 0) throw new SkillRefusal("is an empty path", JSON.stringify(raw));
  return segments.join("/");
}
