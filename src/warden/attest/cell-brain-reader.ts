import {
  type BrainReader,
  type BrainTree,
  isHistoryPath,
  MAX_HISTORY_FILE_BYTES,
  MAX_HISTORY_FILES,
  MAX_HISTORY_TREE_BYTES,
} from "../../attest/index.js";
import type { CellHandle } from "../../cells/index.js";
import type { BrainStateAnswer } from "../../contracts/index.js";
import { type Logger, sha256Hex } from "../../core/index.js";

export interface CellBrainReaderOptions {
  /** The user's cell if one runs now. A record never starts one: a brain with no cell up did not just change. */
  runningCell: (userId: string) => CellHandle | undefined;
  logger: Logger;
  /** How long each question to the cell may take (default 30 s): a cell that never answers costs one record. */
  timeoutMs?: number;
}

/**
 * The warden's BrainReader for brains it cannot read itself (disk images only their cell mounts, under bwrap as
 * root or in a microVM): the running cell reports its markdown tree by hash and its database's snapshot hash
 * (QueryRequest brain_state), and the files whose hash differs from the history's newest node are read over the
 * same channel (FileOpRequest read). Everything the cell says is checked as hostile: paths the history keeps
 * and each once, the caps of a brain directory's record, and each file's bytes against the size and hash it
 * reported. A report that fails any of it is not recorded, and the log says why.
 */
export function cellBrainReader(options: CellBrainReaderOptions): BrainReader {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return async (userId, known) => {
    const cell = options.runningCell(userId);
    if (!cell) {
      options.logger.info(
        { user: userId },
        "a brain change was not recorded: the user's cell no longer runs",
      );
      return undefined;
    }
    try {
      const state = await askState(cell, timeoutMs);
      const files = await readChanged(cell, state, known, timeoutMs);
      return { files, dbSnapshotSha256: state.db_snapshot_sha256 };
    } catch (error) {
      options.logger.warn(
        { user: userId, reason: (error as Error).message },
        "a brain change was not recorded: the cell's report of its brain was refused",
      );
      return undefined;
    }
  };
}

async function askState(cell: CellHandle, timeoutMs: number): Promise<BrainStateAnswer> {
  const reply = await cell.call({ type: "QueryRequest", query: { kind: "brain_state" } }, { timeoutMs });
  if (reply.type !== "QueryResult")
    throw new Error(reply.type === "Error" ? reply.message : `the cell answered ${reply.type}`);
  if (reply.error) throw new Error(`the cell could not report its brain: ${reply.error.message}`);
  if (reply.answer?.kind !== "brain_state")
    throw new Error(`the cell answered ${reply.answer?.kind ?? "nothing"} to brain_state`);
  const state = reply.answer;
  const seen = new Set<string>();
  let total = 0;
  for (const file of state.files) {
    if (!isHistoryPath(file.path)) throw new Error(`${file.path}: not a markdown path of the brain`);
    if (seen.has(file.path)) throw new Error(`${file.path}: reported twice`);
    seen.add(file.path);
    if (file.size_bytes > MAX_HISTORY_FILE_BYTES)
      throw new Error(`${file.path}: larger than ${MAX_HISTORY_FILE_BYTES} bytes`);
    total += file.size_bytes;
  }
  if (seen.size > MAX_HISTORY_FILES) throw new Error(`more than ${MAX_HISTORY_FILES} files`);
  if (total > MAX_HISTORY_TREE_BYTES) throw new Error(`the tree passes ${MAX_HISTORY_TREE_BYTES} bytes`);
  return state;
}

/** The reported tree: unchanged files from the history's newest node, the others read from the cell. */
async function readChanged(
  cell: CellHandle,
  state: BrainStateAnswer,
  known: BrainTree,
  timeoutMs: number,
): Promise<BrainTree> {
  const knownHashes = new Map([...known].map(([path, bytes]) => [path, sha256Hex(bytes)]));
  const tree: BrainTree = new Map();
  for (const file of state.files) {
    const same = knownHashes.get(file.path) === file.sha256 ? known.get(file.path) : undefined;
    if (same !== undefined) {
      tree.set(file.path, same);
      continue;
    }
    const reply = await cell.call(
      { type: "FileOpRequest", op: "read", path: file.path, encoding: "base64" },
      { timeoutMs },
    );
    if (reply.type !== "FileOpResult" || reply.path !== file.path || reply.content === undefined)
      throw new Error(
        `${file.path}: not read (${reply.type === "FileOpResult" ? (reply.error?.message ?? "no content") : reply.type})`,
      );
    const bytes = Buffer.from(reply.content, reply.encoding === "base64" ? "base64" : "utf8");
    if (bytes.length !== file.size_bytes || sha256Hex(bytes) !== file.sha256)
      throw new Error(`${file.path}: its bytes do not match the size and hash the cell reported`);
    tree.set(file.path, bytes);
  }
  return tree;
}
