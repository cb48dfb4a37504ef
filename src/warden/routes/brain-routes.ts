import {
  agentInfoSchema,
  brainDeleteResultSchema,
  brainFileQuerySchema,
  brainFileSchema,
  brainListingSchema,
  brainPathQuerySchema,
  brainWriteBodySchema,
  brainWriteResultSchema,
} from "../../contracts/index.js";
import { HttpError } from "../../http/index.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";
import { type BrainDeps, brainFileOp } from "./brain-access.js";
import { checkJobsToml, JOBS_FILE } from "./cron-file.js";
import { editBrainAsPerson } from "./person-edit.js";

/**
 * The memory inspector's way into a brain: file operations the user's cell performs (the warden never opens a
 * brain itself). A person's edits of prompt files (soul.md, identity.md, instructions/) become what the soul guard
 * compares the agent's changes with.
 */
export function brainRoutes(ctx: BrainDeps & Pick<WardenContext, "audit" | "chat">) {
  return [
    defineRoute({
      method: "GET",
      url: "/api/brain/files",
      summary: "List a folder of the brain (the brain root when path is omitted)",
      tag: "brain",
      access: "user",
      query: brainPathQuerySchema,
      response: brainListingSchema,
      async handler({ auth, query }) {
        const path = query.path ?? ".";
        const reply = await brainFileOp(ctx, auth.userId, { op: "list", path });
        return { path, entries: reply.entries ?? [] };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/brain/file",
      summary: "Read one file of the brain",
      tag: "brain",
      access: "user",
      query: brainFileQuerySchema,
      response: brainFileSchema,
      async handler({ auth, query }) {
        const reply = await brainFileOp(ctx, auth.userId, { op: "read", path: query.path });
        return { path: query.path, content: reply.content ?? "" };
      },
    }),
    defineRoute({
      method: "PUT",
      url: "/api/brain/file",
      summary: "Write one file of the brain; a prompt file written here becomes its approved version",
      tag: "brain",
      access: "user",
      body: brainWriteBodySchema,
      response: brainWriteResultSchema,
      async handler({ auth, body }) {
        // The scheduler would keep running the last good schedule and only log why: refuse it here instead.
        if (body.path === JOBS_FILE) checkJobsToml(body.content);
        // A person's edit of a prompt file is theirs: it becomes the version the soul guard compares with.
        await editBrainAsPerson(ctx, auth.userId, {
          path: body.path,
          content: body.content,
          by: `user:${auth.userId}`,
          cause: `memory edit in the UI: write ${body.path}`,
        });
        return { path: body.path, written: true };
      },
    }),
    defineRoute({
      method: "DELETE",
      url: "/api/brain/file",
      summary: "Delete one file of the brain (soul.md cannot be deleted this way)",
      tag: "brain",
      access: "user",
      query: brainFileQuerySchema,
      response: brainDeleteResultSchema,
      async handler({ auth, query }) {
        if (query.path === "soul.md")
          throw new HttpError(
            "forbidden",
            "soul.md cannot be deleted: edit it instead (the soul guard reviews the change)",
          );
        await editBrainAsPerson(ctx, auth.userId, {
          path: query.path,
          content: null,
          by: `user:${auth.userId}`,
          cause: `memory edit in the UI: delete ${query.path}`,
        });
        return { path: query.path, deleted: true };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/agents",
      summary: "The agent profiles of the signed-in user's brain (starts their cell if needed)",
      tag: "brain",
      access: "user",
      response: agentInfoSchema,
      async handler({ auth }) {
        const ready = await ctx.cells.describe(auth.userId);
        return {
          agents: ready.agents,
          ...(ready.default_agent ? { default_agent: ready.default_agent } : {}),
        };
      },
    }),
  ];
}
