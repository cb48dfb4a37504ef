// File path benchmark: `node --import tsx bench/agent/file-path.ts [rounds]` (default 5000).
// What a file tool operation costs now that paths are walked by descriptors (every component opened inside the
// one before it, no link followed, the file used through the checked descriptor), against the check-then-open
// it replaced (the real path of the deepest existing part compared with the roots, then the path opened again),
// in the same run, on the same brain, for a file three folders deep. Rows: the path step alone (against the old
// check with its async open, and with sync calls as the walk makes them), and whole read and write operations of
// the file tool against the same steps done the old way.
import { closeSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, open, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { createFileTool, MemoryAuditLog, PathPolicy, type ToolContext } from "../../src/agent/index.js";
import {
  closeDir,
  closeFile,
  isWithin,
  openDirectory,
  openFile,
  realpathOfDeepestExisting,
} from "../../src/core/index.js";
import { formatTable, summarise, timeRounds } from "./timing.js";

const ROUNDS = Number(process.argv[2] ?? 5000);
const base = mkdtempSync(join(tmpdir(), "ironclaw-bench-path-"));
const brain = join(base, "brain");
const workspace = join(base, "workspace");
mkdirSync(join(brain, "projects/2026/launch"), { recursive: true });
mkdirSync(join(brain, "config"));
mkdirSync(workspace);
const REL = "projects/2026/launch/notes.md";
writeFileSync(join(brain, REL), "# Launch\n\nThe venue is the old harbour hall.\n");

const policy = new PathPolicy([brain, workspace], { readOnly: [join(brain, "config"), join(brain, "db")] });
const tool = createFileTool();
const ctx: ToolContext = {
  signal: new AbortController().signal,
  pathPolicy: policy,
  audit: new MemoryAuditLog(),
  sessionId: "bench",
  agent: "bench",
};

// The check the file tool made before: lexical checks, then the real path of the deepest existing part.
const realRoots = [realpathSync(brain), realpathSync(workspace)];
const readOnly = [realpathSync(join(brain, "config"))];
function checkThenOpenPath(path: string, intent: "read" | "write"): string {
  if (path.split(/[\\/]/).includes("..")) throw new Error("..");
  const absolute = isAbsolute(path) ? resolve(path) : resolve(brain, path);
  if (!realRoots.some((r) => isWithin(r, absolute))) throw new Error("outside");
  const real = realpathOfDeepestExisting(absolute);
  if (!realRoots.some((r) => isWithin(r, real))) throw new Error("symlink");
  if (intent === "write" && readOnly.some((d) => isWithin(d, real))) throw new Error("read-only");
  return absolute;
}

async function oldRead(): Promise<string> {
  const path = checkThenOpenPath(REL, "read");
  const info = await stat(path);
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(Math.min(info.size, 256 * 1024));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

async function oldWrite(): Promise<void> {
  const path = checkThenOpenPath(REL, "write");
  await stat(path);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, "# Launch\n\nThe venue is the old harbour hall.\n");
}

async function newPathOnly(): Promise<void> {
  const at = policy.locate(REL);
  const dir = openDirectory(at.root, at.parts.slice(0, -1), { readOnly: at.readOnly, shown: at.shown });
  if (!dir) throw new Error("missing");
  const file = openFile(dir, at.parts.at(-1) as string, "read");
  if (file) closeFile(file);
  closeDir(dir);
}

async function oldPathOnly(): Promise<void> {
  const handle = await open(checkThenOpenPath(REL, "read"), "r");
  await handle.close();
}

/** The old check with synchronous calls, as the walk makes them: what the extra system calls alone cost. */
async function oldPathSync(): Promise<void> {
  closeSync(openSync(checkThenOpenPath(REL, "read"), "r"));
}

const write = {
  action: "write" as const,
  path: REL,
  content: "# Launch\n\nThe venue is the old harbour hall.\n",
};
const [oldPath, oldSync, newPath, oldReads, newReads, oldWrites, newWrites] = await timeRounds(ROUNDS, [
  oldPathOnly,
  oldPathSync,
  newPathOnly,
  oldRead,
  () => tool.execute({ action: "read", path: REL }, ctx),
  oldWrite,
  () => tool.execute(write, ctx),
]);

const row = (name: string, before: number[] = [], after: number[] = []) => {
  const b = summarise(before);
  const a = summarise(after);
  const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
  return [name, us(b.p50), us(a.p50), us(b.p95), us(a.p95), `${(a.p50 / b.p50).toFixed(2)}x`];
};
console.log(`file path cost per operation, ${ROUNDS} rounds, ${REL} (3 folders deep)\n`);
console.log(
  formatTable(
    ["operation", "check-then-open p50", "descriptor walk p50", "old p95", "new p95", "ratio p50"],
    [
      row("path + open + close", oldPath, newPath),
      row("same, old check with sync calls", oldSync, newPath),
      row("read (whole tool)", oldReads, newReads),
      row("write (whole tool)", oldWrites, newWrites),
    ],
  ),
);
rmSync(base, { recursive: true, force: true });
