import { mkdirSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import {
  type DirIdentity,
  identityOf,
  isWithin,
  type OpenDir,
  openDirectory,
  PathRefusal,
  pathComponents,
  type ReadOnlyDirs,
} from "../../core/index.js";
import { ToolRefusal } from "./tool-refusal.js";

/** A path the policy accepted by its words: which root it lies in and the components below that root. */
export interface PolicyPath {
  /** The root's real path, where the walk starts. */
  root: string;
  /** Components below the root; empty for the root itself. */
  parts: string[];
  /** The path as the model should see it. */
  shown: string;
  readOnly: ReadOnlyDirs;
}

/**
 * Where file tools may read and write: a list of root directories (the brain and `/tmp/workspace` by default).
 * Relative paths are taken from the first root; `..` segments and absolute paths outside every root are refused.
 * What lies below a root is reached by the kernel, not checked by name: every component is opened inside the
 * one before it without following a link (core's descriptor walk), and the file is used through the descriptor
 * that was opened. A symlink anywhere on the way is refused, so a link flipped by a command running beside the
 * tool cannot redirect it.
 */
export class PathPolicy {
  readonly roots: readonly string[];
  private readonly realRoots: readonly string[];
  private readonly readOnlyIds: readonly DirIdentity[];
  private readonly readOnlyPaths: readonly string[];

  /**
   * `readOnly` directories may be read but not written: the brain's `config/` holds the tool policy itself, so
   * an agent that could rewrite it would grant itself tools and egress on the next start. They are created
   * when missing (so a tool cannot be first to make one) and known by identity as well as by place.
   */
  constructor(roots: string[], options: { readOnly?: string[] } = {}) {
    if (roots.length === 0) throw new TypeError("a path policy needs at least one root");
    this.roots = roots.map((r) => resolve(r));
    this.realRoots = this.roots.map((r) => {
      mkdirSync(r, { recursive: true });
      return realpathSync(r);
    });
    const readOnly = (options.readOnly ?? []).map((d) => resolve(d));
    for (const dir of readOnly) mkdirSync(dir, { recursive: true });
    this.readOnlyIds = readOnly.map(identityOf).filter((id): id is DirIdentity => id !== undefined);
    this.readOnlyPaths = readOnly;
  }

  /** Where `path` lies, by its words alone, or a ToolRefusal saying why it may not be used. */
  locate(path: string): PolicyPath {
    if (path === "") throw new ToolRefusal("the path is empty");
    if (path.includes("\0")) throw new ToolRefusal("the path contains a NUL byte");
    if (path.split(/[\\/]/).includes("..")) throw new ToolRefusal(`${path}: paths with .. are not allowed`);
    const absolute = isAbsolute(path) ? resolve(path) : resolve(this.roots[0] ?? "/", path);
    const match = this.rootOf(absolute);
    if (!match) throw new ToolRefusal(`${path} is outside the allowed roots (${this.roots.join(", ")})`);
    const real = this.realRoots[match.index] as string;
    const parts = pathComponents(relative(match.base, absolute));
    return {
      root: real,
      parts,
      shown: this.display(absolute),
      readOnly: {
        ids: this.readOnlyIds,
        // Read-only directories by place, relative to this root (as written and as really resolved).
        paths: this.readOnlyPaths.flatMap((d) =>
          [this.roots[match.index] as string, real]
            .filter((r) => isWithin(r, d))
            .map((r) => relative(r, d).split(sep).join("/")),
        ),
      },
    };
  }

  /**
   * Opens the directory made of the first `depth` components of a located path (all by default), never through
   * a link; undefined when missing. `create` makes missing ones (refused inside a read-only directory).
   */
  open(located: PolicyPath, options: { depth?: number; create?: boolean } = {}): OpenDir | undefined {
    return refusing(() =>
      openDirectory(located.root, located.parts.slice(0, options.depth ?? located.parts.length), {
        create: options.create ?? false,
        readOnly: located.readOnly,
        shown: located.shown,
      }),
    );
  }

  /** A path as the model should see it: relative to the first root when inside it, absolute otherwise. */
  display(absolute: string): string {
    const base = this.roots[0] ?? "/";
    return isWithin(base, absolute) ? relative(base, absolute) || "." : absolute;
  }

  /** The root a lexical absolute path lies in (the deepest, when roots nest), as written or as resolved. */
  private rootOf(absolute: string): { index: number; base: string } | undefined {
    let best: { index: number; base: string } | undefined;
    for (const list of [this.roots, this.realRoots]) {
      for (const [index, base] of list.entries()) {
        if (isWithin(base, absolute) && (!best || base.length > best.base.length)) best = { index, base };
      }
    }
    return best;
  }
}

/** Runs a descriptor operation, turning its refusals into the tool refusal the tool box reports. */
export function refusing<T>(operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    if (error instanceof PathRefusal) throw new ToolRefusal(error.message, { cause: error });
    throw error;
  }
}
