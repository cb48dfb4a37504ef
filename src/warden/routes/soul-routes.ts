import { z } from "zod";
import { soulChangeDetailSchema, soulChangeSchema } from "../../contracts/index.js";
import { NotFoundError } from "../../core/index.js";
import { defineRoute } from "../http/api-route.js";
import type { Auth } from "../http/auth.js";
import { diffLines } from "../soul/index.js";
import type { WardenContext } from "../warden-context.js";

const idParams = z.strictObject({ id: z.string().min(1) });

/**
 * Soul guard decisions (seed 003 §11.3): the owner of the brain or an admin approves or rejects held changes to
 * any prompt file. The diff is against the version a person last approved, so it shows the whole drift.
 */
export function soulRoutes(ctx: Pick<WardenContext, "soulStore" | "soul" | "logger">) {
  const { soulStore } = ctx;
  const visible = (auth: Auth, id: string) => {
    const change = soulStore.get(id);
    if (!change || (change.userId !== auth.userId && !auth.admin)) throw new NotFoundError("soul change", id);
    return change;
  };
  const decide = (verdict: "approve" | "reject") =>
    defineRoute({
      method: "POST",
      url: `/api/soul/changes/:id/${verdict}`,
      summary:
        verdict === "approve"
          ? "Approve a held prompt file change: it becomes the approved version, and the agent runs again"
          : "Reject a held prompt file change: the approved version is restored, and the agent runs again",
      tag: "soul",
      access: "user",
      params: idParams,
      response: soulChangeSchema,
      async handler({ auth, params }) {
        visible(auth, params.id);
        const by = `user:${auth.userId}`;
        const change =
          verdict === "approve" ? soulStore.approve(params.id, by) : soulStore.reject(params.id, by);
        // Make the brain match the decision now rather than at the next message.
        await ctx.soul
          .gate(change.userId)
          .catch((error: Error) =>
            ctx.logger.warn(
              { err: error },
              "applying a soul guard decision failed; it is retried before the next turn",
            ),
          );
        return soulStore.get(change.id) ?? change;
      },
    });
  return [
    defineRoute({
      method: "GET",
      url: "/api/soul/pending",
      summary: "Held prompt file changes waiting for a decision (yours; everyone's for an admin)",
      tag: "soul",
      access: "user",
      response: z.array(soulChangeSchema),
      handler: async ({ auth }) => soulStore.pending(auth.admin ? undefined : auth.userId),
    }),
    defineRoute({
      method: "GET",
      url: "/api/soul/changes/:id",
      summary: "One held change with its line diff against the approved version",
      tag: "soul",
      access: "user",
      params: idParams,
      response: soulChangeDetailSchema,
      async handler({ auth, params }) {
        const change = visible(auth, params.id);
        return { change, diff: diffLines(change.before ?? "", change.after ?? "") };
      },
    }),
    decide("approve"),
    decide("reject"),
  ];
}
