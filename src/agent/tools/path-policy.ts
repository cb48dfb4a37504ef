import { mkdirSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { InvalidInputError, realpathOfDeepestExisting, isWithin as within } from "../../core/index.js";
import { ToolRefusal } from "./tool-refusal.js";

/**
 * Where file tools may read and write: a list of root directories (the brain and `/tmp/workspace` by default).
 * Relative paths are taken from the first root. A path is refused when it contains a `..` segment, is absolute
 * outside every root, or reaches outside them through a symlink — checked on the real path of the deepest part
 * that exists, so a new file inside a symlinked directory that points out is refused as well.
 */
export class PathPolicy {
  readonly roots: readonly string[];
  private readonly realRoots: readonly string[];
  private readonly readOnly: readonly string[];

  /**
   * `readOnly` directories may be read but not written: the brain's `config/` holds the tool policy itself, so
   * an agent that could rewrite it would grant itself tools and egress on the next start.
   */
  constructor(roots: string[], options: { readOnly?: string[] } = {}) {
    if (roots.length === 0) throw new TypeError("a path policy needs at least one root");
    this.roots = roots.map((r) => resolve(r));
    this.realRoots = this.roots.map((r) => {
      mkdirSync(r, { recursive: true });
      return realpathSync(r);
    });
    this.readOnly = (options.readOnly ?? []).map((d) => realpathOfDeepestExisting(resolve(d)));
  }

  /** The absolute path for `path`, or a ToolRefusal saying why it may not be used. */
  resolve(path: string, intent: "read" | "write" = "read"): string {
    if (path === "") throw new ToolRefusal("the path is empty");
    if (path.includes("\0")) throw new ToolRefusal("the path contains a NUL byte");
    if (path.split(/[\\/]/).includes("..")) throw new ToolRefusal(`${path}: paths with .. are not allowed`);
    const absolute = isAbsolute(path) ? resolve(path) : resolve(this.roots[0] ?? "/", path);
    const lexicallyInside =
      this.roots.some((r) => within(r, absolute)) || this.realRoots.some((r) => within(r, absolute));
    if (!lexicallyInside)
      throw new ToolRefusal(`${path} is outside the allowed roots (${this.roots.join(", ")})`);
    const real = realOrRefuse(absolute);
    if (!this.realRoots.some((r) => within(r, real))) {
      throw new ToolRefusal(`${path} leads outside the allowed roots through a symlink`);
    }
    if (intent === "write" && this.readOnly.some((d) => within(d, real))) {
      throw new ToolRefusal(`${path} is read-only for tools`);
    }
    return absolute;
  }

  /** A path as the model should see it: relative to the first root when inside it, absolute otherwise. */
  display(absolute: string): string {
    const base = this.roots[0] ?? "/";
    return within(base, absolute) ? relative(base, absolute) || "." : absolute;
  }
}

function realOrRefuse(path: string): string {
  try {
    return realpathOfDeepestExisting(path);
  } catch (error) {
    if (error instanceof InvalidInputError) throw new ToolRefusal(error.rule);
    throw error;
  }
}
