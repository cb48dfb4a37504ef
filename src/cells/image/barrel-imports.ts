import { readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { Plugin } from "esbuild";

/*
 * Why this plugin. Each folder exposes its surface through one index.ts, and the inmate imports through them.
 * Handlers are loaded lazily (dynamic imports), and whatever a lazily loaded module imports through a barrel is
 * evaluated with it: the echo handler, which needs one helper from agent/ (runInProcessGroup), would evaluate the
 * whole agent and memory. So, at bundle time only, `import { a, b } from "../agent/index.js"` is rewritten into
 * imports from the files that define `a` and `b`, following the barrel's `export { … } from` lines (barrels inside
 * barrels included). A name the barrel defines itself or passes on through `export *` keeps its import from the
 * barrel. It changes what a start evaluates, not what the bundle holds (539 against 550 modules, 1022 KiB both):
 * without it an echo cell's first reply took 1.5 times as long (process cells, medians of 25 alternated starts
 * on a loaded 2-core host: 1545 against 2238 ms), and importing that one helper from its own file instead won
 * back only half of it (1793 ms).
 */

interface Origin {
  file: string;
  name: string;
}

type BarrelMap = Map<string, Origin>;

const IMPORT_FROM_BARREL = /import\s*\{([^}]*)\}\s*from\s*"(\.{1,2}\/[^"]*index\.js)";/g;
const REEXPORT = /export\s*(type\s+)?\{([^}]*)\}\s*from\s*"(\.{1,2}\/[^"]+)";/g;

/** Rewrites imports through the given source tree's index.ts barrels; files outside it are left alone. */
export function barrelImports(srcDir: string): Plugin {
  const barrels = new Map<string, Promise<BarrelMap>>();
  const barrelAt = (file: string): Promise<BarrelMap> => {
    let found = barrels.get(file);
    if (!found) {
      found = readBarrel(file, barrelAt);
      barrels.set(file, found);
    }
    return found;
  };
  return {
    name: "barrel-imports",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(`${srcDir}/`)) return undefined;
        const source = await readFile(args.path, "utf8");
        return { contents: await rewriteImports(args.path, source, barrelAt), loader: "ts" };
      });
    },
  };
}

async function rewriteImports(
  file: string,
  source: string,
  barrelAt: (file: string) => Promise<BarrelMap>,
): Promise<string> {
  const edits: Array<{ from: number; to: number; text: string }> = [];
  for (const match of source.matchAll(IMPORT_FROM_BARREL)) {
    const [whole, list = "", specifier = ""] = match;
    const barrel = await barrelAt(toTs(join(dirname(file), specifier)));
    const byFile = new Map<string, string[]>();
    const kept: string[] = [];
    for (const entry of splitNames(list)) {
      if (entry.typeOnly) continue; // erased by the compiler anyway
      const origin = barrel.get(entry.name);
      if (!origin) {
        kept.push(entry.text);
        continue;
      }
      const target = toJs(relativeSpecifier(dirname(file), origin.file));
      const names = byFile.get(target) ?? [];
      names.push(origin.name === entry.local ? origin.name : `${origin.name} as ${entry.local}`);
      byFile.set(target, names);
    }
    const lines = [...byFile].map(([target, names]) => `import { ${names.join(", ")} } from "${target}";`);
    if (kept.length > 0) lines.push(`import { ${kept.join(", ")} } from "${specifier}";`);
    edits.push({ from: match.index, to: match.index + whole.length, text: lines.join(" ") });
  }
  let out = source;
  for (const edit of edits.reverse()) out = out.slice(0, edit.from) + edit.text + out.slice(edit.to);
  return out;
}

/** Name → defining file, from a barrel's `export { … } from` lines; nested barrels are followed. */
async function readBarrel(file: string, barrelAt: (file: string) => Promise<BarrelMap>): Promise<BarrelMap> {
  const map: BarrelMap = new Map();
  const source = await readFile(file, "utf8").catch(() => "");
  for (const [, typeOnly, list = "", specifier = ""] of source.matchAll(REEXPORT)) {
    if (typeOnly) continue;
    const target = toTs(join(dirname(file), specifier));
    const nested = target.endsWith("/index.ts") ? await barrelAt(target) : undefined;
    for (const entry of splitNames(list)) {
      if (entry.typeOnly) continue;
      map.set(entry.local, nested?.get(entry.name) ?? { file: target, name: entry.name });
    }
  }
  return map;
}

/** `a, type B, c as d` → entries; `local` is the name the importing side uses. */
function splitNames(list: string): Array<{ name: string; local: string; typeOnly: boolean; text: string }> {
  return list
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((text) => {
      const typeOnly = /^type\s/.test(text);
      const [name = "", local = name] = text.replace(/^type\s+/, "").split(/\s+as\s+/);
      return { name, local, typeOnly, text };
    });
}

function relativeSpecifier(fromDir: string, file: string): string {
  const path = relative(fromDir, file);
  return path.startsWith(".") ? path : `./${path}`;
}

const toTs = (path: string) => path.replace(/\.js$/, ".ts");
const toJs = (path: string) => path.replace(/\.ts$/, ".js");

/**
 * zod's translated error messages (300 kB of the inmate's first chunk) stand behind `z.locales`, which nothing
 * here uses; English, the default, is imported by zod itself from its own file and stays.
 */
export function withoutZodLocales(): Plugin {
  return {
    name: "without-zod-locales",
    setup(build) {
      build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
        args.importer.includes("/node_modules/zod/")
          ? { path: "zod-locales", namespace: "empty" }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "export {};", loader: "js" }));
    },
  };
}
