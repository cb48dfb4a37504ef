import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { CellHandle } from "../../cells/index.js";
import type { BrainEntry } from "../../contracts/index.js";
import { isGitName, readHostFile, removeHostFile, SkipPath, writeHostFile } from "./host-tree.js";

export interface TransferLimits {
  maxFiles: number;
  maxBytes: number;
  /** The cell answers file operations of at most 384 KiB (the inmate's MAX_FILE_OP_BYTES). */
  maxFileBytes: number;
}

export const DEFAULT_TRANSFER_LIMITS: TransferLimits = {
  maxFiles: 5_000,
  maxBytes: 64 * 1024 * 1024,
  maxFileBytes: 384 * 1024,
};

export interface SkippedPath {
  /** Relative to the tree's root. */
  path: string;
  reason: string;
}

export interface TransferReport {
  /** Regular files copied, relative to the tree's root, in the order they were copied. */
  files: string[];
  bytes: number;
  /** Links, special files, `.git`, files over a cap: reported, never copied. */
  skipped: SkippedPath[];
  /** Files of the host's tree removed because the cell's tree no longer had them (copyTreeOut only). */
  removed: string[];
}

const OP_TIMEOUT_MS = 30_000;

/** File operations a transfer keeps in flight at once: the cell answers them one by one, the round trips overlap. */
const TRANSFER_WINDOW = 8;

type Outcome = { path: string; bytes: number } | { path: string; reason: string };

/**
 * Copies the regular files of `hostDir` (an order's worktree) into the cell's brain under `brainDir`, through
 * the protocol's file operations: it works the same on every backend, and the cell never sees the worktree's
 * `.git` (its `.git` file is not copied, nor anything named `.git` anywhere). Links are data to git and are not
 * followed: they are reported and left out. The host reads one file after another, counting each against the
 * caps before it is sent; up to TRANSFER_WINDOW writes are on their way to the cell at once, and the report lists
 * paths in the order of the walk whatever order the cell answers in. Names in `leaveOut` at the tree's root are
 * not wanted in the cell: they are neither copied nor reported.
 */
export async function copyTreeIn(
  cell: CellHandle,
  hostDir: string,
  brainDir = "work",
  limits: TransferLimits = DEFAULT_TRANSFER_LIMITS,
  leaveOut: readonly string[] = [],
): Promise<TransferReport> {
  const outcomes: Promise<Outcome>[] = [];
  const inFlight = new Set<Promise<void>>();
  // Read and sent, including what the cell has not answered yet: the caps hold for what is on its way too.
  const sent = { files: 0, bytes: 0 };
  // A write that failed (the cell died, a call timed out) ends the walk: nothing more is sent after it.
  let broken: { error: unknown } | undefined;
  const skip = (path: string, reason: string) => void outcomes.push(Promise.resolve({ path, reason }));
  const send = async (path: string): Promise<void> => {
    if (broken) throw broken.error;
    const over = overCaps(sent, limits);
    if (over) return skip(path, over);
    let bytes: Buffer;
    try {
      bytes = await readHostFile(
        join(hostDir, path),
        Math.min(limits.maxFileBytes, limits.maxBytes - sent.bytes),
      );
    } catch (error) {
      if (error instanceof SkipPath) return skip(path, error.message);
      throw error;
    }
    sent.files += 1;
    sent.bytes += bytes.length;
    while (inFlight.size >= TRANSFER_WINDOW) await Promise.race(inFlight);
    const outcome = writeInCell(cell, `${brainDir}/${path}`, bytes).then((failure): Outcome => {
      if (failure === undefined) return { path, bytes: bytes.length };
      sent.files -= 1;
      sent.bytes -= bytes.length;
      return { path, reason: `the cell refused it: ${failure}` };
    });
    outcomes.push(outcome);
    const settled = outcome.then(
      () => undefined,
      (error: unknown) => {
        broken ??= { error };
      },
    );
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
  };
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(hostDir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      // The worktree's own `.git` file is always there and says nothing: only a `.git` below it is news.
      if (rel === "" && leaveOut.includes(entry.name)) continue;
      if (isGitName(entry.name)) {
        if (rel !== "") skip(path, "a .git is never copied");
      } else if (entry.isDirectory()) await walk(path);
      else if (!entry.isFile()) skip(path, kindOf(entry));
      else await send(path);
    }
  };
  try {
    await walk("");
  } finally {
    // Nothing is left running behind a failure: every write sent has been answered before this returns or throws.
    await Promise.allSettled(outcomes);
  }
  const report: TransferReport = { files: [], bytes: 0, skipped: [], removed: [] };
  for (const outcome of await Promise.all(outcomes)) {
    if ("reason" in outcome) report.skipped.push(outcome);
    else {
      report.files.push(outcome.path);
      report.bytes += outcome.bytes;
    }
  }
  return report;
}

/** Writes one file into the cell's brain; the cell's refusal, or undefined when it took the file. */
async function writeInCell(cell: CellHandle, path: string, bytes: Buffer): Promise<string | undefined> {
  const reply = await cell.call(
    { type: "FileOpRequest", op: "write", path, content: bytes.toString("base64"), encoding: "base64" },
    { timeoutMs: OP_TIMEOUT_MS },
  );
  return replyFailure(reply);
}

export interface CopyOutOptions {
  limits?: TransferLimits;
  /**
   * Files that went in (copyTreeIn's `files`): those the cell's tree no longer holds are removed from the host's
   * tree, so a deletion in the cell is a deletion in the worktree. Nothing else on the host is ever removed.
   */
  removeMissing?: readonly string[];
  /**
   * Which paths the cell may change (an order's `tool_policy.fs_allowlist`); default all. A file outside is
   * neither copied back nor removed: the host's version stays, and the report names it.
   */
  allow?: (path: string) => boolean;
}

/**
 * Copies the regular files of the cell's `brainDir` back into `hostDir`, treating everything the cell says as
 * hostile: only names that are one plain path component each, no `.git` anywhere (a hook or a config planted
 * there would run on the host's next git command), no links or special files, every cap enforced on what was
 * actually read rather than on the size the cell claims. What is skipped is reported.
 * Up to TRANSFER_WINDOW reads are on their way at once, but what comes back is taken strictly in the order of the
 * walk: each file is counted against the caps and written to the host only after every file before it, so the
 * files written, the caps and the report are exactly those of a copy that reads one file at a time.
 */
export async function copyTreeOut(
  cell: CellHandle,
  brainDir: string,
  hostDir: string,
  options: CopyOutOptions = {},
): Promise<TransferReport> {
  const limits = options.limits ?? DEFAULT_TRANSFER_LIMITS;
  const allow = options.allow;
  const report: TransferReport = { files: [], bytes: 0, skipped: [], removed: [] };
  // In the order of the walk: a file with its read (started early, or not yet when the caps could not spare it),
  // or a path skipped at listing time, which must not overtake the files before it in the report.
  const line: Array<{ path: string; read?: Promise<FileOpAnswer> } | SkippedPath> = [];
  let reading = 0;
  const readOut = (path: string) =>
    fileOp(cell, { op: "read", path: `${brainDir}/${path}`, encoding: "base64" });
  const takeOldest = async (): Promise<void> => {
    const next = line.shift();
    if (next === undefined) return;
    if ("reason" in next) return void report.skipped.push(next);
    if (next.read) reading -= 1;
    await takeOneOut(hostDir, next.path, () => next.read ?? readOut(next.path), limits, report);
  };
  const enqueue = async (path: string): Promise<void> => {
    // Reserved: every read on its way counts as a file and as a whole file's worth of bytes, so no read starts
    // that the caps could not take even if all those before it were taken.
    const spare =
      report.files.length + reading < limits.maxFiles &&
      report.bytes + (reading + 1) * limits.maxFileBytes <= limits.maxBytes;
    const read = spare && !overCaps(report, limits) ? readOut(path) : undefined;
    // A read that fails while those before it are still being taken is awaited (and thrown) in its turn.
    read?.catch(() => undefined);
    if (read) reading += 1;
    line.push(read ? { path, read } : { path });
    while (reading >= TRANSFER_WINDOW) await takeOldest();
  };
  const walk = async (rel: string): Promise<void> => {
    const listed = await fileOp(cell, { op: "list", path: rel === "" ? brainDir : `${brainDir}/${rel}` });
    // Without the root's listing nothing is known of the cell's tree, and every file would look deleted.
    if ("failure" in listed && rel === "")
      throw new Error(`the cell's ${brainDir}/ could not be listed: ${listed.failure}`);
    if ("failure" in listed) return void line.push({ path: rel, reason: listed.failure });
    for (const entry of listed.entries) {
      const name = nameIn(entry, rel === "" ? brainDir : `${brainDir}/${rel}`);
      if (name === undefined) {
        line.push({ path: entry.path.slice(0, 200), reason: "not a plain name inside the folder listed" });
        continue;
      }
      const path = rel === "" ? name : `${rel}/${name}`;
      if (isGitName(name)) line.push({ path, reason: "a .git is never copied to the host" });
      else if (entry.kind === "dir") await walk(path);
      else if (entry.kind !== "file")
        line.push({
          path,
          reason: `a ${entry.kind === "link" ? "symbolic link" : "special file"} is not copied`,
        });
      else if (allow && !allow(path)) line.push({ path, reason: "outside the order's fs_allowlist" });
      else await enqueue(path);
    }
  };
  try {
    await walk("");
    while (line.length > 0) await takeOldest();
  } finally {
    // Nothing is left running behind a failure: every read started has been answered before this returns or throws.
    await Promise.allSettled(line.map((item) => ("read" in item ? item.read : undefined)));
  }
  // A path the cell still holds in some form (skipped: over a cap, now a link, under a folder it could not list)
  // is not a deletion: the host keeps its version and the report says why the cell's was not taken.
  const copied = new Set(report.files);
  const present = (path: string) =>
    copied.has(path) || report.skipped.some((s) => path === s.path || path.startsWith(`${s.path}/`));
  for (const path of options.removeMissing ?? []) {
    if (allow && !allow(path)) continue;
    if (!present(path) && (await removeHostFile(hostDir, path))) report.removed.push(path);
  }
  return report;
}

/** Takes one file read from the cell: counted against the caps on the bytes that came, then written to the host. */
async function takeOneOut(
  hostDir: string,
  path: string,
  read: () => Promise<FileOpAnswer>,
  limits: TransferLimits,
  report: TransferReport,
): Promise<void> {
  const over = overCaps(report, limits);
  if (over) return void report.skipped.push({ path, reason: over });
  const answer = await read();
  if ("failure" in answer) return void report.skipped.push({ path, reason: answer.failure });
  const bytes = Buffer.from(answer.content, "base64");
  if (bytes.length > limits.maxFileBytes || report.bytes + bytes.length > limits.maxBytes)
    return void report.skipped.push({ path, reason: `${bytes.length} bytes is over the transfer cap` });
  try {
    await writeHostFile(hostDir, path, bytes);
  } catch (error) {
    if (error instanceof SkipPath) return void report.skipped.push({ path, reason: error.message });
    throw error;
  }
  report.files.push(path);
  report.bytes += bytes.length;
}

type FileOpAnswer = { failure: string } | { entries: BrainEntry[]; content: string };

async function fileOp(
  cell: CellHandle,
  request: { op: "list" | "read"; path: string; encoding?: "base64" },
): Promise<FileOpAnswer> {
  const reply = await cell.call({ type: "FileOpRequest", ...request }, { timeoutMs: OP_TIMEOUT_MS });
  const failure = replyFailure(reply);
  if (failure || reply.type !== "FileOpResult") return { failure: failure ?? "no answer" };
  if (request.encoding === "base64" && reply.encoding !== "base64")
    return { failure: "the cell did not answer in base64" };
  return { entries: reply.entries ?? [], content: reply.content ?? "" };
}

function replyFailure(reply: Awaited<ReturnType<CellHandle["call"]>>): string | undefined {
  if (reply.type === "Error") return reply.message;
  if (reply.type !== "FileOpResult") return `the cell answered ${reply.type}`;
  return reply.error ? `${reply.error.code}: ${reply.error.message}` : undefined;
}

/** The entry's own name when its path is exactly `<dir>/<name>` with a plain name; undefined otherwise. */
function nameIn(entry: BrainEntry, dir: string): string | undefined {
  if (!entry.path.startsWith(`${dir}/`)) return undefined;
  const name = entry.path.slice(dir.length + 1);
  if (name === "" || name === "." || name === ".." || name.includes("/")) return undefined;
  return name;
}

function overCaps(
  counted: { files: number | readonly string[]; bytes: number },
  limits: TransferLimits,
): string | undefined {
  const files = typeof counted.files === "number" ? counted.files : counted.files.length;
  if (files >= limits.maxFiles) return `over the cap of ${limits.maxFiles} files`;
  if (counted.bytes >= limits.maxBytes) return `over the cap of ${limits.maxBytes} bytes`;
  return undefined;
}

function kindOf(entry: { isSymbolicLink(): boolean }): string {
  return entry.isSymbolicLink() ? "a symbolic link is not copied" : "a special file is not copied";
}
