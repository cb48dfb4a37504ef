import { basename, dirname, join } from "node:path";
import {
  installedSkillSchema,
  skillInstallBodySchema,
  skillListSchema,
  skillNameParamsSchema,
  skillRemovedSchema,
  skillReviewQuerySchema,
  skillReviewSchema,
  skillScopeQuerySchema,
} from "../../contracts/index.js";
import { HttpError } from "../../http/index.js";
import { defineRoute } from "../http/api-route.js";
import type { Auth } from "../http/auth.js";
import { SkillRefusal } from "../skills/index.js";
import type { WardenContext } from "../warden-context.js";
import { discardStaged, receiveSkillArchive, stagedArchive } from "./skill-upload.js";
import { installedView, reviewView } from "./skill-views.js";

type Deps = Pick<WardenContext, "skills" | "users" | "audit">;

/**
 * Skills with consent (issue #38): an archive is uploaded and staged for review, and only an approval naming the
 * reviewed SHA-256 installs it, pinned in the user's skills.lock. Nothing here is reachable from a cell.
 */
export function skillsRoutes(deps: Deps) {
  /** Whose skills: your own; an admin may name anyone who exists. */
  const whose = (auth: Auth, user: string | undefined): string => {
    if (user === undefined || user === auth.userId) return auth.userId;
    if (!auth.admin)
      throw new HttpError(
        "forbidden",
        `query.user: only an admin may act for another user (you are ${auth.userId})`,
        {
          field: "query.user",
        },
      );
    if (!deps.users.get(user))
      throw new HttpError("not_found", `query.user: no user named ${user}`, { field: "query.user" });
    return user;
  };
  // One upload under review per user, in a host-owned folder beside the installed skills (never in the brain).
  const uploads = (userId: string) => join(dirname(deps.skills.skillsDir(userId)), "skill-upload");
  const actor = (auth: Auth) => `user:${auth.userId}`;

  /** The skill in the staged archive as the store reads it now; a refusal names the file at fault. */
  async function reviewStaged(userId: string, archive: string, auth: Auth) {
    try {
      return await deps.skills.review(archive);
    } catch (error) {
      if (!(error instanceof SkillRefusal)) throw error;
      // The archive's place on the host is not the caller's business: it is named by its file name.
      const where = error.path === undefined || error.path === archive ? basename(archive) : error.path;
      const message = `body: ${where}: ${error.reason}`;
      deps.audit.record({ userId, actor: actor(auth), action: "skill.refused", detail: { reason: message } });
      await discardStaged(uploads(userId));
      throw new HttpError("validation_failed", message, {
        field: "body",
        details: { issues: [{ path: `body.${where}`, message: error.reason }] },
      });
    }
  }

  return [
    defineRoute({
      method: "GET",
      url: "/api/skills",
      summary: "Installed skills with their pinned hash, approval, availability and what each may reach",
      tag: "skills",
      access: "user",
      query: skillScopeQuerySchema,
      response: skillListSchema,
      handler: async ({ auth, query }) => {
        const user = whose(auth, query.user);
        return { user, skills: deps.skills.list(user).map(installedView) };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/skills/review",
      summary:
        "Stage a skill archive (.tar.gz/.tgz/.tar body, application/gzip, application/x-tar or application/octet-stream, at most 50 MiB) and show what it asks for; installs nothing",
      tag: "skills",
      access: "user",
      query: skillReviewQuerySchema,
      response: skillReviewSchema,
      handler: async ({ auth, query, request }) => {
        const user = whose(auth, query.user);
        const { file, bytes } = await receiveSkillArchive(request, uploads(user), query.filename);
        const review = await reviewStaged(user, file, auth);
        const installed = deps.skills.list(user).find((s) => s.name === review.name);
        deps.audit.record({
          userId: user,
          actor: actor(auth),
          action: "skill.reviewed",
          detail: { name: review.name, sha256: review.sha256, bytes },
        });
        return reviewView(user, review, installed);
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/skills/install",
      summary:
        "Approve and install (or update to) exactly the reviewed skill, named by its review's sha256; another hash is a 409",
      tag: "skills",
      access: "user",
      query: skillScopeQuerySchema,
      body: skillInstallBodySchema,
      response: installedSkillSchema,
      handler: async ({ auth, query, body }) => {
        const user = whose(auth, query.user);
        const staged = await stagedArchive(uploads(user));
        if (!staged)
          throw new HttpError(
            "conflict",
            `body.sha256: nothing of ${user}'s is under review; send the archive to POST /api/skills/review first`,
            { field: "body.sha256" },
          );
        const review = await reviewStaged(user, staged, auth);
        if (review.sha256 !== body.sha256)
          throw new HttpError(
            "conflict",
            `body.sha256: you approved ${body.sha256}, but the skill under review (${review.name}) is ${review.sha256}; review it again`,
            { field: "body.sha256", details: { approved: body.sha256, reviewed: review.sha256 } },
          );
        const replaces = deps.skills.list(user).some((s) => s.name === review.name);
        const options = { approvedSha256: body.sha256, by: actor(auth) };
        const installed = await (replaces
          ? deps.skills.update(user, staged, options)
          : deps.skills.install(user, staged, options)
        ).catch((error: unknown) => {
          // Changed between the check above and the store's own (another upload, another tab).
          if (error instanceof SkillRefusal) throw new HttpError("conflict", `body.sha256: ${error.message}`);
          throw error;
        });
        await discardStaged(uploads(user));
        return installedView(installed);
      },
    }),
    defineRoute({
      method: "DELETE",
      url: "/api/skills/:name",
      summary: "Remove an installed skill and its pin; the agent is no longer offered it",
      tag: "skills",
      access: "user",
      params: skillNameParamsSchema,
      query: skillScopeQuerySchema,
      response: skillRemovedSchema,
      handler: async ({ auth, params, query }) => {
        const user = whose(auth, query.user);
        if (!deps.skills.list(user).some((s) => s.name === params.name))
          throw new HttpError("not_found", `params.name: ${user} has no skill named ${params.name}`, {
            field: "params.name",
          });
        deps.skills.remove(user, params.name, actor(auth));
        return { user, name: params.name, removed: true };
      },
    }),
  ];
}
