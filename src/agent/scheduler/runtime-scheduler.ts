import type { Logger } from "../../core/index.js";
import { BRAIN_PATHS } from "../../memory/index.js";
import type { AgentRuntime } from "../agent-runtime.js";
import type { Clock } from "./clock.js";
import { CronScheduler } from "./cron-scheduler.js";
import { JobStore } from "./job-store.js";

export interface RuntimeSchedulerOptions {
  clock?: Clock;
  watch?: boolean;
  debounceMs?: number;
  maxSteps?: number;
  logger?: Logger;
}

/**
 * The scheduler of a brain, wired to its runtime: each run is a fresh session of the job's agent, and its result
 * is appended to the day's log through memory (so it is indexed) with the line range as `last_result_ref`.
 */
export function createRuntimeScheduler(
  runtime: AgentRuntime,
  options: RuntimeSchedulerOptions = {},
): CronScheduler {
  return new CronScheduler({
    jobsFile: runtime.brain.resolve(BRAIN_PATHS.cronJobs),
    store: new JobStore(runtime.db),
    async runJob(job, scope) {
      const result = await runtime.runTurn({
        prompt: scope.prompt,
        sessionId: scope.sessionId,
        signal: scope.signal,
        // A job's result goes to the day's log (below); it is not a conversation to keep a transcript of.
        transcript: false,
        ...(job.agent ? { agent: job.agent } : {}),
        ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
      });
      if (result.stopReason === "stop" || result.stopReason === "length")
        return { ok: true, text: result.text };
      return {
        ok: false,
        text: result.text,
        error: result.error?.message ?? `the run ended with ${result.stopReason}`,
      };
    },
    async writeResult({ title, text, at }) {
      const saved = await runtime.memory.remember(text, { target: "log", title, now: at });
      return `${saved.path}#L${saved.startLine}-L${saved.endLine}`;
    },
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.watch === undefined ? {} : { watch: options.watch }),
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
