import { dirname, join, normalize } from "node:path";
import ts from "typescript";

// The house of docs/architecture (ARCHITECTURE "The house") as data: which floor each folder of src/ stands on,
// the few same-floor arrows it draws, what the inmate — the code an attacker in a cell controls — may never
// reach, and the inner files one folder imports from another despite the index rule, each with its reason.
// checkHouse judges a list of files against it, so a test can feed it a planted file and see it fail.

/** Data flows down: a folder imports only from floors below its own. */
export const FLOORS: Readonly<Record<string, number>> = {
  core: 1,
  contracts: 2,
  http: 3,
  ledger: 3,
  memory: 3,
  providers: 3,
  attest: 3,
  channel: 3,
  egress: 3,
  agent: 4,
  inmate: 5,
  cells: 5,
  warden: 6,
  command: 6,
  evolution: 6,
  cli: 7,
};

/** Arrows between folders on one floor that the house draws; any other same-floor import is a violation. */
export const SAME_FLOOR_ARROWS: ReadonlyArray<{ from: string; to: string; why: string }> = [
  {
    from: "ledger",
    to: "http",
    why: "the ledger's routes are defined with the one route definer and HTTP error",
  },
  { from: "memory", to: "providers", why: "the embedder factory builds the OpenAI-compatible embedder" },
  {
    from: "warden",
    to: "command",
    why: "the warden hosts command under its users and auth, and lends it cells and the model proxy",
  },
  {
    from: "warden",
    to: "evolution",
    why: "the warden ingests runtime events into the evolution store under its users and auth",
  },
];

/**
 * Arrows the floors would allow but the jail does not: the inmate and the agent it runs are the cell side, so they
 * never reach host-only folders, and nothing of the host imports the inmate (only tests, outside src/, do).
 */
export const FORBIDDEN_ARROWS: ReadonlyArray<{ from: string; to: string; why: string }> = [
  { from: "inmate", to: "cells", why: "the inmate and the host side of cells never import each other" },
  { from: "cells", to: "inmate", why: "the inmate and the host side of cells never import each other" },
  { from: "inmate", to: "egress", why: "the warden fetches for cells; a cell never reaches egress" },
  { from: "inmate", to: "ledger", why: "the ledger is the host's (Postgres, HTTP routes)" },
  { from: "inmate", to: "http", why: "the HTTP server is the host's" },
  { from: "agent", to: "egress", why: "the agent runs in a cell; its fetcher is injected" },
  { from: "agent", to: "ledger", why: "the agent runs in a cell" },
  { from: "agent", to: "http", why: "the agent runs in a cell" },
  { from: "*", to: "inmate", why: "what runs in a cell is imported by nothing of the host" },
];

/** Packages of the host alone: the cell bundle must not carry them, and inmate/ must not import them. */
export const HOST_ONLY_PACKAGES: readonly string[] = [
  "fastify",
  "@fastify/websocket",
  "pg",
  "pg-boss",
  "ws",
  "esbuild",
  "prebuild-install",
];

/** Folders no code reachable from the inmate's entry may come from (the cell bundle's inputs). */
export const HOST_ONLY_FOLDERS: readonly string[] = [
  "cells",
  "warden",
  "command",
  "evolution",
  "cli",
  "egress",
  "ledger",
  "http",
];

/**
 * Folders whose rooms are each a surface of their own: another folder imports `src/<folder>/<room>/index.ts`.
 * Everywhere else a folder's surface is its one `index.ts`.
 */
export const ROOM_SURFACES: ReadonlyArray<{ folder: string; why: string }> = [
  {
    folder: "contracts",
    why:
      "the formats come in families (cell/, command/, warden/…), each behind its index.ts; the inmate imports " +
      "cell/ alone, so a cell's boot builds none of the host's schemas",
  },
];

/**
 * Inner files another folder imports by name, against the index rule, each for a reason: all of them sit on
 * the path a cell evaluates before its first reply, where a folder's whole index would cost a visible fraction
 * of a second (core's index brings the logger and pino; contracts/cell/index.ts every config schema).
 */
export const INNER_IMPORTS: ReadonlyArray<{ from: string; to: string; why: string }> = [
  {
    from: "src/inmate/cell-loader.ts",
    to: "src/channel/cell-start.ts",
    why: "the loader is bundled on its own and must stay a few hundred bytes, not carry the protocol and its schemas",
  },
  {
    from: "src/channel/protocol-peer.ts",
    to: "src/core/async-queue.ts",
    why: "a cell's boot loads the peer; core's import-free queue, not core's index with the logger",
  },
  {
    from: "src/channel/protocol-peer.ts",
    to: "src/core/emitter.ts",
    why: "a cell's boot loads the peer; core's import-free emitter, not core's index with the logger",
  },
  {
    from: "src/channel/inbound-check.ts",
    to: "src/contracts/cell/protocol-message.ts",
    why:
      "a cell's boot checks frames against the protocol schema alone, not every config schema of cell/index.ts " +
      "(an echo cell's start to first reply: 230 against 200 ms of CPU)",
  },
  {
    from: "src/contracts/registry.ts",
    to: "src/core/errors.ts",
    why: "every contract loads the registry at a cell's boot; core's index would bring the logger and pino",
  },
  {
    from: "src/contracts/registry.ts",
    to: "src/core/zod-issues.ts",
    why: "every contract loads the registry at a cell's boot; core's index would bring the logger and pino",
  },
  {
    from: "src/inmate/brain-file-ops.ts",
    to: "src/core/descriptor-walk.ts",
    why: "an echo cell answers file operations; core's index would bring the logger and pino to its start",
  },
];

export interface SourceFile {
  /** Relative to the package root, with forward slashes: `src/inmate/irowclaw.ts`. */
  path: string;
  text: string;
}

export interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

/** Every import, export-from, dynamic import and require in `text`, as written (comments and strings skipped). */
export function importSpecifiers(text: string): string[] {
  let found = scanned.get(text);
  if (found === undefined) {
    found = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
    scanned.set(text, found);
  }
  return found;
}

// TypeScript's scanner is the slow part; a test that checks the tree twice (as is, and with planted files)
// reads each file once.
const scanned = new Map<string, string[]>();

/** The folder of src/ a path lies in (`src/agent/tools/x.ts` → `agent`), or undefined outside one. */
export function folderOf(path: string): string | undefined {
  const parts = path.split("/");
  return parts[0] === "src" && parts.length > 2 ? parts[1] : undefined;
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

/** Every import of `files` that breaks the house rules, each naming the file, the import and the rule. */
export function checkHouse(files: readonly SourceFile[]): Violation[] {
  const violations: Violation[] = [];
  const edges = new Map<string, { file: string; specifier: string }>();
  const rooms = new Set(files.filter((f) => f.path.endsWith("/index.ts")).map((f) => dirname(f.path)));
  for (const file of files) {
    const from = folderOf(file.path);
    if (from === undefined) continue;
    if (FLOORS[from] === undefined)
      violations.push({ file: file.path, specifier: "", rule: `src/${from} is on no floor of the house` });
    for (const specifier of importSpecifiers(file.text)) {
      if (specifier.startsWith(".")) {
        const target = normalize(join(dirname(file.path), specifier)).replaceAll("\\", "/");
        const to = folderOf(target);
        if (to === from) {
          const rule = roomRule(file.path, target, rooms);
          if (rule !== undefined) violations.push({ file: file.path, specifier, rule });
        }
        if (to === undefined || to === from) continue;
        if (!edges.has(`${from}>${to}`)) edges.set(`${from}>${to}`, { file: file.path, specifier });
        const rule = arrowRule(from, to) ?? surfaceRule(file.path, target, rooms);
        if (rule !== undefined) violations.push({ file: file.path, specifier, rule });
      } else if (from === "inmate" && !specifier.startsWith("node:")) {
        const name = packageOf(specifier);
        if (HOST_ONLY_PACKAGES.includes(name))
          violations.push({
            file: file.path,
            specifier,
            rule: `inmate imports the host-only package ${name}`,
          });
      }
    }
  }
  for (const cycle of folderCycles(edges)) {
    const first = edges.get(`${cycle[0]}>${cycle[1]}`);
    violations.push({
      file: first?.file ?? "",
      specifier: first?.specifier ?? "",
      rule: `import cycle between folders: ${[...cycle, cycle[0]].join(" → ")}`,
    });
  }
  return violations;
}

function arrowRule(from: string, to: string): string | undefined {
  const forbidden = FORBIDDEN_ARROWS.find((a) => (a.from === from || a.from === "*") && a.to === to);
  if (forbidden) return `${from} must not import ${to}: ${forbidden.why}`;
  const mine = FLOORS[from];
  const theirs = FLOORS[to];
  if (mine === undefined || theirs === undefined) return `${to} is on no floor of the house`;
  if (theirs > mine) return `${from} (floor ${mine}) imports ${to} (floor ${theirs}), a higher floor`;
  if (theirs === mine && !SAME_FLOOR_ARROWS.some((a) => a.from === from && a.to === to))
    return `${from} imports ${to} on its own floor (${mine}), an arrow the house does not draw`;
  return undefined;
}

/**
 * The index rule between folders: an import into another folder of src/ targets its index.ts (or a room's, for
 * ROOM_SURFACES), unless INNER_IMPORTS lists it. Unit tests beside their file may reach inside.
 */
function surfaceRule(file: string, target: string, rooms: ReadonlySet<string>): string | undefined {
  const to = folderOf(target) ?? "";
  if (isTest(file) || target === `src/${to}/index.js`) return undefined;
  const room = dirname(target);
  if (ROOM_SURFACES.some((r) => r.folder === to) && target.endsWith("/index.js") && rooms.has(room))
    if (dirname(room) === `src/${to}`) return undefined;
  if (INNER_IMPORTS.some((i) => i.from === file && i.to === asTs(target))) return undefined;
  const surface = ROOM_SURFACES.some((r) => r.folder === to)
    ? `src/${to}/<room>/index.ts`
    : `src/${to}/index.ts`;
  return `${folderOf(file)} imports an inner file of ${to}: import its surface, ${surface}`;
}

/**
 * The index rule inside a folder: a room (a sub-folder with an index.ts, such as warden/budget/) is entered by
 * the rest of its folder through that index.ts only.
 */
function roomRule(file: string, target: string, rooms: ReadonlySet<string>): string | undefined {
  if (isTest(file)) return undefined;
  const parts = target.split("/");
  for (let depth = 3; depth < parts.length; depth++) {
    const room = parts.slice(0, depth).join("/");
    if (file.startsWith(`${room}/`)) continue;
    if (!rooms.has(room)) return undefined;
    if (target === `${room}/index.js`) return undefined;
    return `${file.split("/").slice(1, -1).join("/")} imports an inner file of the room ${room.slice(4)}: import ${room}/index.ts`;
  }
  return undefined;
}

const isTest = (path: string) => path.endsWith(".test.ts");
const asTs = (path: string) => path.replace(/\.js$/, ".ts");

/** The cycles of the folder graph: each strongly connected set of two or more folders, as one path round it. */
function folderCycles(edges: ReadonlyMap<string, unknown>): string[][] {
  const next = new Map<string, string[]>();
  for (const key of edges.keys()) {
    const [from = "", to = ""] = key.split(">");
    next.set(from, [...(next.get(from) ?? []), to]);
  }
  const cycles: string[][] = [];
  const seen = new Set<string>();
  for (const start of [...next.keys()].sort()) {
    if (seen.has(start)) continue;
    const path = findPathBack(start, next);
    if (path === undefined) continue;
    for (const folder of path) seen.add(folder);
    cycles.push(path);
  }
  return cycles;
}

/** A shortest walk from `start` back to itself, breadth first, or undefined. */
function findPathBack(start: string, next: ReadonlyMap<string, string[]>): string[] | undefined {
  const queue: string[][] = [[start]];
  const visited = new Set<string>();
  while (queue.length > 0) {
    const path = queue.shift() ?? [];
    for (const to of next.get(path[path.length - 1] ?? "") ?? []) {
      if (to === start) return path;
      if (visited.has(to)) continue;
      visited.add(to);
      queue.push([...path, to]);
    }
  }
  return undefined;
}
