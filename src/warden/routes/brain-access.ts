import type { CellHandle } from "../../cells/index.js";
import type { BrainAnswer, BrainQuery, FileOpRequest, FileOpResult } from "../../contracts/index.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import { crashLoopMessage } from "../cell-trouble.js";
import type { WardenContext } from "../warden-context.js";

/** What reaching a user's brain needs: the soul guard, which may hold the cell, and the cells. */
export type BrainDeps = Pick<WardenContext, "soul" | "cells">;

/** A 503: the user's cell could not be started or did not answer as it should. */
export function cellUnavailable(message: string): HttpError {
  return new HttpError("unavailable", message);
}

/** The user's cell, unless the soul guard halted it (then a 409 that says what to do). */
export async function liveCell(ctx: BrainDeps, userId: string): Promise<CellHandle> {
  const halted = ctx.soul.halted(userId);
  if (halted) throw new ConflictError(halted);
  const refusal = await ctx.soul.gate(userId);
  if (refusal) throw new ConflictError(refusal);
  const { cell } = await ctx.cells.get(userId).catch((error: Error) => {
    throw cellUnavailable(crashLoopMessage(error) ?? `your agent's cell could not start: ${error.message}`);
  });
  return cell;
}

/**
 * Asks the user's cell one question about its brain database; a refusal becomes the matching HTTP error
 * (the cell's not_found a 404, its conflict a 409, its invalid a 400, anything else a 503).
 */
export async function askBrain<K extends BrainQuery["kind"]>(
  ctx: BrainDeps,
  userId: string,
  query: Extract<BrainQuery, { kind: K }>,
): Promise<Extract<BrainAnswer, { kind: K }>> {
  const cell = await liveCell(ctx, userId);
  const reply = await cell.call({ type: "QueryRequest", query }, { timeoutMs: 60_000 });
  if (reply.type !== "QueryResult")
    throw cellUnavailable(
      reply.type === "Error" ? `the cell refused: ${reply.message}` : `the cell answered ${reply.type}`,
    );
  if (reply.error?.code === "not_found") throw new HttpError("not_found", reply.error.message);
  if (reply.error?.code === "conflict") throw new ConflictError(reply.error.message);
  if (reply.error?.code === "invalid") throw new InvalidInputError("query", reply.error.message);
  if (reply.error) throw cellUnavailable(`the cell could not answer: ${reply.error.message}`);
  if (reply.answer?.kind !== query.kind)
    throw cellUnavailable(`the cell answered ${reply.answer?.kind ?? "nothing"} to ${query.kind}`);
  return reply.answer as Extract<BrainAnswer, { kind: K }>;
}

export type FileOpBody = Omit<FileOpRequest, "type" | "user_id" | "session_id" | "msg_id" | "timestamp">;

/** One file operation in the user's brain, done by their cell; refusals become 403/404/409. */
export async function brainFileOp(ctx: BrainDeps, userId: string, body: FileOpBody): Promise<FileOpResult> {
  const cell = await liveCell(ctx, userId);
  const reply = await cell.call({ type: "FileOpRequest", ...body }, { timeoutMs: 60_000 });
  if (reply.type !== "FileOpResult")
    throw cellUnavailable(reply.type === "Error" ? reply.message : `the cell answered ${reply.type}`);
  if (reply.error?.code === "not_found") throw new NotFoundError("brain path", body.path);
  if (reply.error?.code === "forbidden") throw new HttpError("forbidden", reply.error.message);
  if (reply.error) throw new ConflictError(reply.error.message);
  return reply;
}

/** A brain file's text, or undefined when it does not exist. */
export async function readBrainFile(
  ctx: BrainDeps,
  userId: string,
  path: string,
): Promise<string | undefined> {
  try {
    return (await brainFileOp(ctx, userId, { op: "read", path })).content ?? "";
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}
