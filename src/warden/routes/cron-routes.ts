import {
  type CronJob,
  cronJobCreateBodySchema,
  cronJobListSchema,
  cronJobParamsSchema,
  cronJobUpdateBodySchema,
  cronRunAnswerSchema,
  deletedAnswerSchema,
} from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";
import {
  askBrain,
  type BrainDeps,
  brainFileOp,
  cellUnavailable,
  liveCell,
  readBrainFile,
} from "./brain-access.js";
import { editJobsToml, JOBS_FILE } from "./cron-file.js";

/**
 * The cron editor (seed 003 §8.2): the jobs with the scheduler's state, and edits saved to cron/jobs.toml
 * through the user's cell, each checked as the scheduler will load it before it is written.
 */
export function cronRoutes(ctx: BrainDeps & Pick<WardenContext, "audit">) {
  const save = async (userId: string, edit: Parameters<typeof editJobsToml>[1], action: string) => {
    const text = (await readBrainFile(ctx, userId, JOBS_FILE)) ?? "";
    const next = editJobsToml(text, edit);
    await brainFileOp(ctx, userId, { op: "write", path: JOBS_FILE, content: next });
    ctx.audit.record({ userId, actor: `user:${userId}`, action, detail: { path: JOBS_FILE } });
  };
  const listed = async (userId: string, id: string) => {
    const { jobs } = await askBrain(ctx, userId, { kind: "cron_jobs" });
    return jobs.find((j) => j.id === id);
  };
  return [
    defineRoute({
      method: "GET",
      url: "/api/cron/jobs",
      summary: "The cron jobs with next run, last run, status and last result",
      tag: "cron",
      access: "user",
      response: cronJobListSchema,
      async handler({ auth }) {
        const answer = await askBrain(ctx, auth.userId, { kind: "cron_jobs" });
        return { jobs: answer.jobs, ...(answer.file_error ? { file_error: answer.file_error } : {}) };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/cron/jobs",
      summary: "Add a job to cron/jobs.toml; an invalid schedule is refused with the line and the rule",
      tag: "cron",
      access: "user",
      body: cronJobCreateBodySchema,
      response: cronJobListSchema.shape.jobs.element,
      status: 201,
      async handler({ auth, body }) {
        await save(auth.userId, { add: body }, "cron.added");
        return (await listed(auth.userId, body.id)) ?? unlisted(body);
      },
    }),
    defineRoute({
      method: "PUT",
      url: "/api/cron/jobs/:id",
      summary: "Replace a job of cron/jobs.toml (also how it is enabled or disabled)",
      tag: "cron",
      access: "user",
      params: cronJobParamsSchema,
      body: cronJobUpdateBodySchema,
      response: cronJobListSchema.shape.jobs.element,
      async handler({ auth, params, body }) {
        const job: CronJob = { ...body, id: params.id };
        await save(auth.userId, { replace: params.id, with: job }, "cron.changed");
        return (await listed(auth.userId, params.id)) ?? unlisted(job);
      },
    }),
    defineRoute({
      method: "DELETE",
      url: "/api/cron/jobs/:id",
      summary: "Remove a job from cron/jobs.toml",
      tag: "cron",
      access: "user",
      params: cronJobParamsSchema,
      response: deletedAnswerSchema,
      async handler({ auth, params }) {
        await save(auth.userId, { remove: params.id }, "cron.removed");
        return { deleted: params.id };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/cron/jobs/:id/run",
      summary: "Run a job now and answer when it has finished",
      tag: "cron",
      access: "user",
      params: cronJobParamsSchema,
      response: cronRunAnswerSchema,
      async handler({ auth, params }) {
        const cell = await liveCell(ctx, auth.userId);
        ctx.audit.record({
          userId: auth.userId,
          actor: `user:${auth.userId}`,
          action: "cron.run",
          detail: { job: params.id },
        });
        const reply = await cell.call({ type: "JobTrigger", job_id: params.id }, { timeoutMs: 30 * 60_000 });
        if (reply.type !== "JobStatus")
          throw cellUnavailable(reply.type === "Error" ? reply.message : `the cell answered ${reply.type}`);
        return {
          job_id: reply.job_id,
          status: reply.status,
          ...(reply.result_ref ? { result_ref: reply.result_ref } : {}),
          ...(reply.error ? { error: reply.error } : {}),
        };
      },
    }),
  ];
}

/** A saved job the scheduler has not listed (it reloads on its own a moment later). */
function unlisted(job: CronJob) {
  return {
    ...job,
    next_run: null,
    last_run: null,
    status: job.enabled ? ("scheduled" as const) : ("disabled" as const),
    last_result_ref: null,
    last_error: null,
  };
}
