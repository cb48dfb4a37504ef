import { describe, expect, it } from "vitest";
import { ORDER_STATUSES, RUN_STATUSES } from "../command/index.js";
import {
  COMMAND_ORDER_STATUSES,
  COMMAND_RUN_STATUSES,
  commandRequestSchema,
  commandResultSchema,
} from "./protocol-command.js";
import { protocolMessageSchema } from "./protocol-message.js";

const header = { user_id: "ada", session_id: "s-1", msg_id: 3, timestamp: "2026-03-14T09:12:03Z" };
const request = (fields: Record<string, unknown>) => ({ type: "CommandRequest", ...header, ...fields });

/** The first problem of a message the schema refuses, as `path: rule`. */
function problem(message: unknown): string {
  const parsed = protocolMessageSchema.safeParse(message);
  if (parsed.success) return "accepted";
  const issue = parsed.error.issues[0];
  return `${issue?.path.join(".")}: ${issue?.message}`;
}

describe("CommandRequest", () => {
  it("starts a run with a theater and an objective, and follows or cancels one by its id", () => {
    expect(problem(request({ action: "start", theater_id: "demo", objective: "add rate limiting" }))).toBe(
      "accepted",
    );
    expect(problem(request({ action: "status", run_id: "01J8ZQ4S7Y3N1P0VJ5W8K2M6XD" }))).toBe("accepted");
    expect(problem(request({ action: "cancel", run_id: "run_1" }))).toBe("accepted");
  });

  it("names the field an action is missing or must not have", () => {
    expect(problem(request({ action: "start", objective: "go" }))).toBe(
      "theater_id: is required for action start",
    );
    expect(problem(request({ action: "start", theater_id: "demo" }))).toBe(
      "objective: is required for action start",
    );
    expect(problem(request({ action: "status" }))).toBe("run_id: is required for action status");
    expect(problem(request({ action: "cancel", run_id: "r", objective: "x" }))).toBe(
      "objective: must not be given for action cancel",
    );
    expect(problem(request({ action: "stop", run_id: "r" }))).toBe(
      "action: must be one of start, status, cancel",
    );
  });

  it("refuses an objective over 4000 characters, an empty one, ids that are not one path segment, and extra keys", () => {
    const start = { action: "start", theater_id: "demo" };
    expect(commandRequestSchema.safeParse(request({ ...start, objective: "x".repeat(4000) })).success).toBe(
      true,
    );
    expect(problem(request({ ...start, objective: "x".repeat(4001) }))).toBe(
      "objective: must be at most 4000 characters",
    );
    expect(problem(request({ ...start, objective: "   " }))).toBe("objective: must not be empty");
    expect(problem(request({ action: "start", theater_id: "../etc", objective: "go" }))).toBe(
      "theater_id: must not contain / or \\: it becomes one path segment",
    );
    expect(problem(request({ action: "status", run_id: "-rf" }))).toBe("run_id: must not start with - or .");
    expect(problem(request({ ...start, objective: "go", repo_path: "/srv/repo" }))).toMatch(
      /^: Unrecognized key/,
    );
  });
});

describe("CommandResult", () => {
  const run = { run_id: "run_1", theater_id: "demo", status: "OPEN", orders: [] };
  const result = (fields: Record<string, unknown>) => ({
    type: "CommandResult",
    ...header,
    reply_to: 3,
    ...fields,
  });

  it("carries a run or an error, exactly one of them", () => {
    expect(commandResultSchema.safeParse(result({ run })).success).toBe(true);
    expect(
      commandResultSchema.safeParse(result({ error: { code: "not_found", message: "run r not found" } }))
        .success,
    ).toBe(true);
    expect(problem(result({}))).toBe("run: exactly one of run and error must be given");
    expect(problem(result({ run, error: { code: "failed", message: "x" } }))).toBe(
      "error: exactly one of run and error must be given",
    );
    expect(problem(result({ run: { ...run, status: "DONE" } }))).toBe(
      "run.status: must be one of OPEN, COMPLETE, FAILED, CANCELLED",
    );
  });

  it("spells seed 000's run and order statuses as the command contracts do", () => {
    expect(COMMAND_RUN_STATUSES).toEqual(RUN_STATUSES);
    expect(COMMAND_ORDER_STATUSES).toEqual(ORDER_STATUSES);
  });
});
