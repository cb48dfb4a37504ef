import {
  memoryForgetBodySchema,
  memoryForgetResultSchema,
  memorySearchAnswerSchema,
  memorySearchParamsSchema,
  memoryStatusAnswerSchema,
  type PROMOTION_DECISIONS,
  promotionAnswerSchema,
  promotionListAnswerSchema,
  promotionListParamsSchema,
  promotionParamsSchema,
  toolAuditAnswerSchema,
  toolAuditParamsSchema,
} from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import { parseForgetTarget } from "../../memory/index.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";
import { askBrain, type BrainDeps } from "./brain-access.js";

/**
 * What the brain database knows, asked of the user's cell (the warden never opens it): hybrid memory search
 * with each hit's semantic and lexical parts and provenance, the index status, and the tool-call audit trail.
 */
export function memoryRoutes(ctx: BrainDeps & Pick<WardenContext, "audit">) {
  const decide = (decision: (typeof PROMOTION_DECISIONS)[number]) =>
    defineRoute({
      method: "POST",
      url: `/api/memory/promotions/:id/${decision}`,
      summary:
        decision === "approve"
          ? "Approve a promotion: its fact is appended to memory.md with a note of its source"
          : "Reject a promotion: nothing is written, and the passage is not proposed again",
      tag: "memory",
      access: "user",
      params: promotionParamsSchema,
      response: promotionAnswerSchema,
      async handler({ auth, params }) {
        const answer = await askBrain(ctx, auth.userId, {
          kind: "memory_promotion_decide",
          id: params.id,
          decision,
        });
        ctx.audit.record({
          userId: auth.userId,
          actor: `user:${auth.userId}`,
          action: `memory.promotion.${decision}`,
          detail: { id: params.id, path: answer.proposal.path, result: answer.proposal.result_ref },
        });
        return answer.proposal;
      },
    });
  return [
    defineRoute({
      method: "GET",
      url: "/api/memory/promotions",
      summary: "Proposals to add facts that answers kept recalling (from logs/ and sessions/) to memory.md",
      tag: "memory",
      access: "user",
      query: promotionListParamsSchema,
      response: promotionListAnswerSchema,
      async handler({ auth, query }) {
        const answer = await askBrain(ctx, auth.userId, {
          kind: "memory_promotions",
          ...(query.status ? { status: query.status } : {}),
        });
        return { proposals: answer.proposals };
      },
    }),
    decide("approve"),
    decide("reject"),
    defineRoute({
      method: "GET",
      url: "/api/memory/search",
      summary: "Hybrid search of the brain: each hit with its semantic and lexical scores, path and headings",
      tag: "memory",
      access: "user",
      query: memorySearchParamsSchema,
      response: memorySearchAnswerSchema,
      async handler({ auth, query }) {
        const answer = await askBrain(ctx, auth.userId, {
          kind: "memory_search",
          text: query.q,
          ...(query.mode ? { mode: query.mode } : {}),
          ...(query.limit ? { limit: query.limit } : {}),
        });
        return { hits: answer.hits };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/memory/forget",
      summary:
        "Forget a passage for good (a query: every paragraph holding all its words; or a chunk id from a search " +
        "hit): without apply, what would be removed; with apply, removed from the brain's markdown, index and " +
        "database and from the conversations kept here",
      tag: "memory",
      access: "user",
      body: memoryForgetBodySchema,
      response: memoryForgetResultSchema,
      async handler({ auth, body }) {
        checkForgetTarget(body.target);
        const { kind: _kind, ...answer } = await askBrain(ctx, auth.userId, {
          kind: "memory_forget",
          target: body.target,
          apply: body.apply ?? false,
        });
        if (answer.applied)
          ctx.audit.record({
            userId: auth.userId,
            actor: `user:${auth.userId}`,
            action: "memory.forget",
            // Where, by hash: what was forgotten is not kept here either.
            detail: { places: answer.places.map((p) => ({ path: p.path, hash: p.hash })) },
          });
        return answer;
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/memory/status",
      summary: "The brain index: files, chunks, embedder, when it last indexed",
      tag: "memory",
      access: "user",
      response: memoryStatusAnswerSchema,
      async handler({ auth }) {
        return (await askBrain(ctx, auth.userId, { kind: "memory_status" })).status;
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/audit/tools",
      summary:
        "The agent's tool calls from its brain's audit trail, newest first; filter by session, tool, outcome",
      tag: "audit",
      access: "user",
      query: toolAuditParamsSchema,
      response: toolAuditAnswerSchema,
      async handler({ auth, query }) {
        const answer = await askBrain(ctx, auth.userId, {
          kind: "tool_audit",
          ...(query.session ? { session_id: query.session } : {}),
          ...(query.tool ? { tool: query.tool } : {}),
          ...(query.outcome ? { outcome: query.outcome } : {}),
          ...(query.limit ? { limit: query.limit } : {}),
        });
        return { entries: answer.entries };
      },
    }),
  ];
}

/** The cell checks the target too; checked here first so the 400 names the body's field. */
function checkForgetTarget(target: string): void {
  try {
    parseForgetTarget(target);
  } catch (error) {
    if (error instanceof InvalidInputError) throw new InvalidInputError(`body.${error.path}`, error.rule);
    throw error;
  }
}
