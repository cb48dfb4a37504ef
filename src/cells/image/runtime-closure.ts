import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The installed packages the runtime needs: `roots` (the packages the inmate bundle leaves external) and their
 * dependencies, the `excluded` ones (install-time helpers) left out. Absolute directories, sorted. Host-only
 * packages (fastify, pg…) never appear: the inmate does not import them, which test/structure checks.
 */
export async function runtimePackages(
  packageRoot: string,
  roots: readonly string[],
  excluded: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const found = new Set<string>();
  const queue: Array<{ name: string; from: string }> = [];
  for (const name of roots) queue.push({ name, from: packageRoot });
  while (queue.length > 0) {
    const next = queue.shift();
    if (!next || excluded.has(next.name)) continue;
    const dir = locate(next.name, next.from, packageRoot);
    if (!dir || found.has(dir)) continue;
    found.add(dir);
    const pkg = await readJson(join(dir, "package.json"));
    for (const name of dependencyNames(pkg)) queue.push({ name, from: dir });
  }
  return [...found].sort();
}

function dependencyNames(pkg: Record<string, unknown>): string[] {
  const deps = { ...(pkg.dependencies as object), ...(pkg.optionalDependencies as object) };
  return Object.keys(deps);
}

/** Node's lookup: the nearest node_modules from the requiring package up to the root. */
function locate(name: string, from: string, root: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === root || !dir.startsWith(root)) return undefined;
    const parent = dir.slice(0, dir.lastIndexOf("/node_modules/"));
    dir = parent.length > 0 && parent !== dir ? parent : root;
  }
}

async function readJson(file: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
}
