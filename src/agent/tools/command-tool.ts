import { z } from "zod";
import {
  COMMAND_ACTIONS,
  COMMAND_OBJECTIVE_MAX,
  type CommandAction,
  type CommandErrorCode,
  type CommandRun,
  pathSafeId,
} from "../../contracts/index.js";
import { defineTool, failed, ok, type ToolResult } from "./tool-definition.js";

/** One command action as the tool asks it; the conversation it comes from is the turn's session. */
export interface CommandCall {
  action: CommandAction;
  theaterId?: string;
  objective?: string;
  runId?: string;
}

/** What came back: the run's state, or why not (a code the warden chose, or `refused` for a bad request). */
export type CommandAnswer =
  | { run: CommandRun }
  | { error: { code: CommandErrorCode | "refused"; message: string } };

/**
 * How the command tool reaches command, given by whoever runs the agent: in a cell, a request to the warden over
 * the channel; without one, every call is answered that command is not enabled.
 */
export type CommandClient = (
  call: CommandCall,
  scope: { signal: AbortSignal; sessionId: string },
) => Promise<CommandAnswer>;

const commandArgs = z
  .strictObject({
    action: z
      .enum(COMMAND_ACTIONS, `must be one of ${COMMAND_ACTIONS.join(", ")}`)
      .describe("start a run, check a run's status, or cancel a run"),
    theater: pathSafeId.optional().describe("the theater (project) to run in, such as demo; for start"),
    objective: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(COMMAND_OBJECTIVE_MAX, `must be at most ${COMMAND_OBJECTIVE_MAX} characters`)
      .optional()
      .describe("what the run should achieve, in the user's words; for start"),
    run_id: pathSafeId.optional().describe("the run to look at or cancel; for status and cancel"),
  })
  .superRefine((args, ctx) => {
    const say = (field: string, rule: string) =>
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `${rule} for action ${args.action}`,
        input: args,
      });
    if (args.action === "start") {
      if (args.theater === undefined) say("theater", "is required");
      if (args.objective === undefined) say("objective", "is required");
      if (args.run_id !== undefined) say("run_id", "must not be given");
    } else if (args.run_id === undefined) say("run_id", "is required");
  });

/** Starts, follows and cancels command runs for the user, through the warden that hosts command. */
export function createCommandTool(client: CommandClient) {
  return defineTool({
    name: "command",
    description:
      "Hand a larger piece of work on a project (a theater, such as demo) to command, which plans it into " +
      "orders, runs each in its own git worktree, checks and merges the results. Use it when the user asks " +
      'for changes to a project\'s code or repository ("in theater demo, add rate limiting to the API"), not ' +
      "for questions you can answer yourself. action start needs theater and objective and returns a run id; " +
      "progress and the final reply are posted to this conversation as the run goes, so do not wait for it. " +
      "action status or cancel needs run_id.",
    parameters: commandArgs,
    async execute(args, { signal, sessionId }) {
      const answer = await client(
        {
          action: args.action,
          ...(args.theater === undefined ? {} : { theaterId: args.theater }),
          ...(args.objective === undefined ? {} : { objective: args.objective }),
          ...(args.run_id === undefined ? {} : { runId: args.run_id }),
        },
        { signal, sessionId },
      );
      if ("error" in answer)
        return failed(`command ${args.action} failed (${answer.error.code}): ${answer.error.message}`, {
          code: answer.error.code,
        });
      return describeRun(args.action, answer.run);
    },
  });
}

function describeRun(action: CommandAction, run: CommandRun): ToolResult {
  const lines = [`Run ${run.run_id} in theater ${run.theater_id}: ${run.status}`];
  if (run.orders.length === 0) lines.push("Orders: none planned yet");
  else {
    lines.push("Orders:");
    for (const order of run.orders) lines.push(`- ${order.order_id} ${order.status}: ${order.title}`);
  }
  if (run.reply !== undefined) lines.push("", `Final reply: ${run.reply}`);
  if (action === "start")
    lines.push(
      "",
      "Command is working on it; its progress and final reply will appear in this conversation.",
    );
  return ok(lines.join("\n"), { run_id: run.run_id, theater_id: run.theater_id, status: run.status });
}

/** A runtime without a way to command (a host-side run, a test) answers every call with this. */
export const noCommand: CommandClient = async () => ({
  error: { code: "not_enabled", message: "command is not enabled on this host" },
});
