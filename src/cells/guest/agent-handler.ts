import { existsSync } from "node:fs";
import { type AgentEvent, AgentRuntime, createRuntimeScheduler } from "../../agent/index.js";
import type { ChatMessage } from "../../providers/index.js";
import { runFileOp } from "./brain-file-ops.js";
import type { CellHandler, TurnEvent } from "./cell-handler.js";

export interface AgentHandlerOptions {
  brainRoot: string;
  /** The bash tool's working directory; the cell's tmpfs workspace when it has one. */
  workspace?: string;
}

/**
 * The production handler: the agent runtime (src/agent) of this cell's brain behind the protocol. A
 * UserMessage is one turn of its session (history kept per session_id while the cell runs), a JobTrigger runs
 * the cron job through the brain's scheduler, which also runs the schedule of cron/jobs.toml on its own.
 */
export async function createAgentHandler(options: AgentHandlerOptions): Promise<CellHandler> {
  const workspace = options.workspace ?? (existsSync("/tmp/workspace") ? "/tmp/workspace" : process.cwd());
  const runtime = await AgentRuntime.open(options.brainRoot, { workspace, watchBrain: true });
  const scheduler = createRuntimeScheduler(runtime, { watch: true });
  scheduler.start();
  const histories = new Map<string, ChatMessage[]>();
  return {
    name: "agent",
    async *onUserMessage(message, context) {
      const events: TurnEvent[] = [];
      let wake: (() => void) | undefined;
      const push = (event: TurnEvent) => {
        events.push(event);
        wake?.();
      };
      const emit = (event: AgentEvent) => {
        if (event.type === "text_delta") push({ kind: "delta", delta: event.delta });
        else if (event.type === "tool_result") {
          push({
            kind: "tool",
            callId: event.call.id,
            tool: event.call.name,
            isError: event.result.isError,
            content: event.result.content,
          });
        }
      };
      const turn = runtime
        .runTurn({
          prompt: message.text,
          sessionId: message.session_id,
          history: histories.get(message.session_id) ?? [],
          signal: context.signal,
          emit,
          ...(message.agent ? { agent: message.agent } : {}),
        })
        .then(
          (result) => {
            histories.set(message.session_id, result.messages);
            push({
              kind: "final",
              text: result.text,
              usage: result.usage,
              stopReason: result.stopReason === "max_steps" ? "length" : result.stopReason,
              ...(result.error ? { error: result.error.message } : {}),
            });
          },
          (error: Error) =>
            push({ kind: "final", text: "", stopReason: "error", error: error.message || "turn failed" }),
        );
      for (;;) {
        const next = events.shift();
        if (next) {
          yield next;
          if (next.kind === "final") break;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      await turn;
    },
    attach(notify) {
      // Scheduled runs (not JobTriggers, which are answered in place) are reported as they finish.
      scheduler.on("notification", (n) => {
        if (n.reason === "manual" || n.status === "running" || n.status === "queued") return;
        notify(
          n.status === "failed"
            ? { job_id: n.jobId, status: "failed", error: n.error ?? "the job failed" }
            : { job_id: n.jobId, status: n.status, ...(n.resultRef ? { result_ref: n.resultRef } : {}) },
        );
      });
    },
    onFileOp: (request, context) => runFileOp(context.brainRoot, request),
    async *onJobTrigger(trigger) {
      yield { status: "running" };
      try {
        const done = await scheduler.runNow(trigger.job_id, trigger.prompt);
        const ok = done.status === "succeeded";
        yield ok
          ? { status: "succeeded", ...(done.resultRef ? { result_ref: done.resultRef } : {}) }
          : { status: "failed", error: done.error ?? `the job ended ${done.status}` };
      } catch (error) {
        yield { status: "failed", error: (error as Error).message || "the job could not run" };
      }
    },
    async close() {
      await scheduler.stop();
      await runtime.close();
    },
  };
}
