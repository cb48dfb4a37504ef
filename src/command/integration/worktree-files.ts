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

/** The worktree's after-action report, validated (seed 000 §3.7 "Validate aar.json schema"). */
export function readAar(worktreePath: string, orderId: string): AarFile {
  const parsed = aarFileSchema.safeParse(readWorktreeJson(worktreePath, "aar.json"));
  if (!parsed.success) refuseFile("aar.json", issuesFromZod(parsed.error));
  if (parsed.data.order_id !== orderId)
    throw new InvalidInputError("aar.json $.order_id", `must be ${orderId}, the order being integrated`);
  return parsed.data;
}

/**
 * The order's acceptance commands: order.json's `inputs.acceptance_tests` (seed 001's name for them), none when
 * the order lists none. A listed value that is not an array of non-empty strings is refused, not ignored.
 */
export function readAcceptanceCommands(worktreePath: string, orderId: string): string[] {
  const parsed = orderFileSchema.safeParse(readWorktreeJson(worktreePath, "order.json"));
  if (!parsed.success) refuseFile("order.json", issuesFromZod(parsed.error));
  if (parsed.data.order_id !== orderId)
    throw new InvalidInputError("order.json $.order_id", `must be ${orderId}, the order being integrated`);
  const tests = parsed.data.inputs.acceptance_tests;
  if (tests === undefined) return [];
  if (!Array.isArray(tests) || !tests.every((t) => typeof t === "string" && t.trim() !== ""))
    throw new InvalidInputError(
      "order.json $.inputs.acceptance_tests",
      "must be an array of non-empty command strings",
    );
  return tests;
}
