import { type AarFile, aarFileSchema, orderFileSchema } from "../../contracts/index.js";
import {
  closeDir,
  closeFile,
  InvalidInputError,
  issuesFromZod,
  openDirectory,
  openFile,
  PathRefusal,
  readOpenFile,
} from "../../core/index.js";
import { hostGit } from "../git/host-git.js";
import { acceptanceCommands } from "../vault/task-file.js";
import { MAIN_REF } from "./merge-worktree.js";

/** aar.json and order.json are small; a bigger one is refused rather than read whole. */
const MAX_JSON_BYTES = 1024 * 1024;

/**
 * Reads `<worktree>/<name>` as JSON without following a link: the worktree was written by a cell, so an
 * aar.json that is a symlink to a host file must be refused, not read. Throws InvalidInputError naming the file.
 */
function readWorktreeJson(worktreePath: string, name: string): unknown {
  let dir: ReturnType<typeof openDirectory>;
  try {
    dir = openDirectory(worktreePath, []);
  } catch (error) {
    throw new InvalidInputError("$.worktree_path", `${worktreePath} is not a directory`, { cause: error });
  }
  if (!dir) throw new InvalidInputError("$.worktree_path", `${worktreePath} does not exist`);
  try {
    const file = openFile(dir, name, "read");
    if (!file) throw new InvalidInputError(name, "is missing from the worktree");
    try {
      const bytes = readOpenFile(file, MAX_JSON_BYTES + 1);
      if (bytes.length > MAX_JSON_BYTES) throw new InvalidInputError(name, `is over ${MAX_JSON_BYTES} bytes`);
      return JSON.parse(bytes.toString("utf8"));
    } catch (error) {
      if (error instanceof SyntaxError)
        throw new InvalidInputError(name, "is not valid JSON", { cause: error });
      throw error;
    } finally {
      closeFile(file);
    }
  } catch (error) {
    if (error instanceof PathRefusal) throw new InvalidInputError(name, error.rule, { cause: error });
    throw error;
  } finally {
    closeDir(dir);
  }
}

/** A schema failure as one InvalidInputError naming the first bad field of the file. */
function refuseFile(name: string, issues: ReturnType<typeof issuesFromZod>): never {
  const first = issues[0];
  const path = first ? `${name} ${first.path}` : name;
  throw new InvalidInputError(path, first?.message ?? "does not match its schema");
}

/**
 * The worktree's after-action report, validated (seed 000 §3.7 "Validate aar.json schema"), whatever status it
 * reports: the commanding officer's synthesis reads failed and partial ones too.
 */
export function readAar(worktreePath: string, orderId: string): AarFile {
  const parsed = aarFileSchema.safeParse(readWorktreeJson(worktreePath, "aar.json"));
  if (!parsed.success) refuseFile("aar.json", issuesFromZod(parsed.error));
  if (parsed.data.order_id !== orderId)
    throw new InvalidInputError(
      "aar.json $.order_id",
      `must be ${orderId}, the order whose worktree holds it`,
    );
  return parsed.data;
}

/**
 * The order's acceptance commands, from order.json as command wrote it: the first commit of the order's branch
 * (the vault's "prepared" commit, made on the host before any worker ran). The worktree's copy is the worker's
 * to change, and an order must not be able to drop the tests it is judged by.
 */
export async function readAcceptanceCommands(repo: string, tip: string, orderId: string): Promise<string[]> {
  const own = await hostGit(repo, ["rev-list", "--reverse", "--topo-order", tip, "--not", MAIN_REF]);
  const first = own.stdout.split("\n").find((line) => line !== "");
  if (first === undefined) return [];
  // One cat-file answers with the size before the bytes: a blob over the cap is refused without being kept.
  const found = await hostGit(repo, ["cat-file", "--batch"], { input: `${first}:order.json\n` });
  const header = /^[0-9a-f]+ (\w+) (\d+)\n/.exec(found.stdout);
  if (header?.[1] !== "blob")
    throw new InvalidInputError("order.json", `is missing from the order's first commit ${first}`);
  if (Number(header[2]) > MAX_JSON_BYTES)
    throw new InvalidInputError("order.json", `is over ${MAX_JSON_BYTES} bytes`);
  const text = found.stdout.slice(header[0].length, found.stdout.length - 1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError("order.json", "is not valid JSON", { cause: error });
  }
  const parsed = orderFileSchema.safeParse(json);
  if (!parsed.success) refuseFile("order.json", issuesFromZod(parsed.error));
  if (parsed.data.order_id !== orderId)
    throw new InvalidInputError("order.json $.order_id", `must be ${orderId}, the order being integrated`);
  return acceptanceCommands(parsed.data);
}

/**
 * The indexes of `paths` that commit `rev` does not hold (files or folders), in one `cat-file --batch-check` for
 * all of them; a path with a line break, which the batch's lines cannot carry, is asked alone.
 */
export async function missingPaths(repo: string, rev: string, paths: readonly string[]): Promise<number[]> {
  const missing: number[] = [];
  const batched = paths.flatMap((path, i) => (path.includes("\n") ? [] : [i]));
  if (batched.length > 0) {
    const input = batched.map((i) => `${rev}:${paths[i]}\n`).join("");
    const answers = (await hostGit(repo, ["cat-file", "--batch-check"], { input })).stdout.split("\n");
    batched.forEach((i, line) => {
      if (answers[line]?.endsWith(" missing") !== false) missing.push(i);
    });
  }
  for (const [i, path] of paths.entries()) {
    if (!path.includes("\n")) continue;
    const found = await hostGit(repo, ["cat-file", "-e", `${rev}:${path}`], { allowFailure: true });
    if (found.code !== 0) missing.push(i);
  }
  return missing.sort((a, b) => a - b);
}
