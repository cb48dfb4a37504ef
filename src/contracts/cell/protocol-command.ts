import { z } from "zod";
import { aString, pathSafeId } from "../common.js";
import { protocolHeader } from "./protocol-header.js";

// The command tool's way to the warden (ARCHITECTURE "Runtime topology → Command": reachable from the user's own
// agent as a tool). The agent in a cell asks the warden to start, follow or cancel a command run; the warden
// owns the runs, checks that each belongs to the cell's user, and answers with the run's state. Nothing here
// lets a cell name another user, a repository path or a host: a theater and a run are path-safe ids.

export const COMMAND_ACTIONS = ["start", "status", "cancel"] as const;
export type CommandAction = (typeof COMMAND_ACTIONS)[number];

/** Longest objective a cell may hand to command: a paragraph or a page of intent, not a document. */
export const COMMAND_OBJECTIVE_MAX = 4000;

/**
 * Seed 000 §0 run_status and order_status, as the cell's protocol carries them. Spelled again here rather than
 * imported from contracts/command, so that a cell's boot builds no command schema; a test holds the two equal.
 */
export const COMMAND_RUN_STATUSES = ["OPEN", "COMPLETE", "FAILED", "CANCELLED"] as const;
export const COMMAND_ORDER_STATUSES = [
  "QUEUED",
  "CLAIMED",
  "RUNNING",
  "BLOCKED",
  "COMPLETED",
  "FAILED",
  "CANCELLED",
] as const;

/**
 * Why a command request was not served: `not_enabled` (this host does not run command), `not_found` (no such
 * run or theater for this user; another user's run is not found either), `invalid` (command refused the
 * input), `conflict` (the run cannot do that now, such as cancelling a finished run), `forbidden` (the request
 * named a user other than the cell's), `failed` (the warden could not complete it; the reason is in its log).
 */
export const COMMAND_ERROR_CODES = [
  "not_enabled",
  "not_found",
  "invalid",
  "conflict",
  "forbidden",
  "failed",
] as const;
export type CommandErrorCode = (typeof COMMAND_ERROR_CODES)[number];

const objective = aString()
  .trim()
  .min(1, "must not be empty")
  .max(COMMAND_OBJECTIVE_MAX, `must be at most ${COMMAND_OBJECTIVE_MAX} characters`);

/**
 * Inmate → warden: one command action. The conversation it comes from is the header's session_id (the turn's
 * session); the warden checks it is the user's own conversation before it reports progress there.
 */
export const commandRequestSchema = z
  .strictObject({
    type: z.literal("CommandRequest"),
    ...protocolHeader,
    action: z.enum(COMMAND_ACTIONS, `must be one of ${COMMAND_ACTIONS.join(", ")}`),
    theater_id: pathSafeId.optional(),
    objective: objective.optional(),
    run_id: pathSafeId.optional(),
  })
  .superRefine((msg, ctx) => {
    const need = (field: "theater_id" | "objective" | "run_id", present: boolean) =>
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: present
          ? `must not be given for action ${msg.action}`
          : `is required for action ${msg.action}`,
        input: msg,
      });
    if (msg.action === "start") {
      if (msg.theater_id === undefined) need("theater_id", false);
      if (msg.objective === undefined) need("objective", false);
      if (msg.run_id !== undefined) need("run_id", true);
    } else {
      if (msg.run_id === undefined) need("run_id", false);
      if (msg.objective !== undefined) need("objective", true);
    }
  });
export type CommandRequest = z.output<typeof commandRequestSchema>;

/** One order of a run as the agent and its user see it: what it is for and where it stands. */
export const commandOrderSummarySchema = z.strictObject({
  order_id: pathSafeId,
  title: aString().max(500, "must be at most 500 characters"),
  status: z.enum(COMMAND_ORDER_STATUSES, `must be one of ${COMMAND_ORDER_STATUSES.join(", ")}`),
});
export type CommandOrderSummary = z.output<typeof commandOrderSummarySchema>;

/** A run's state for the agent: its id, theater, status, orders and, once complete, the final reply. */
export const commandRunSchema = z.strictObject({
  run_id: pathSafeId,
  theater_id: pathSafeId,
  status: z.enum(COMMAND_RUN_STATUSES, `must be one of ${COMMAND_RUN_STATUSES.join(", ")}`),
  orders: z.array(commandOrderSummarySchema).max(500, "must list at most 500 orders"),
  reply: aString().max(20_000, "must be at most 20000 characters").optional(),
});
export type CommandRun = z.output<typeof commandRunSchema>;

/** Warden → inmate: the answer to one CommandRequest (named by `reply_to`): the run, or why not. */
export const commandResultSchema = z
  .strictObject({
    type: z.literal("CommandResult"),
    ...protocolHeader,
    run: commandRunSchema.optional(),
    error: z
      .strictObject({
        code: z.enum(COMMAND_ERROR_CODES, `must be one of ${COMMAND_ERROR_CODES.join(", ")}`),
        message: aString().min(1, "must not be empty").max(2000, "must be at most 2000 characters"),
      })
      .optional(),
  })
  .superRefine((msg, ctx) => {
    if ((msg.run === undefined) === (msg.error === undefined))
      ctx.addIssue({
        code: "custom",
        path: [msg.run === undefined ? "run" : "error"],
        message: "exactly one of run and error must be given",
        input: msg,
      });
  });
export type CommandResult = z.output<typeof commandResultSchema>;
