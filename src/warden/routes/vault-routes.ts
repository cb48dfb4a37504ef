import { z } from "zod";
import { enqueueJobRequest } from "../../command/index.js";
import {
  deletedAnswerSchema,
  integrateDataSchema,
  integrateRequestSchema,
  jobMessageSchema,
  pathSafeId,
  workerJobRequestSchema,
  worktreeArchiveRequestSchema,
  worktreeCreateDataSchema,
  worktreeCreateRequestSchema,
  worktreePrepareRequestSchema,
} from "../../contracts/index.js";
import { InvalidInputError, NotFoundError } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import { defineRoute } from "../http/api-route.js";
import { type CommandDeps, commandAccess } from "./command-access.js";

const orderParams = z.object({ order_id: pathSafeId });

/**
 * The vault's worktrees (seed 000 §3.4), integration (§3.7) and the HTTP job intake (§3.5) under the warden's
 * users: a worktree is its order's run owner's, and only an admin queues a job by hand.
 */
export function vaultRoutes(ctx: CommandDeps) {
  const access = commandAccess(ctx);
  const orderOf = async (orderId: string) => {
    const order = await access.service().store.getOrder(orderId);
    if (!order) throw new NotFoundError("order", orderId);
    return order;
  };
  return [
    defineRoute({
      method: "POST",
      url: "/api/worktrees",
      summary: "Create the worktree of an order on its branch (seed 000 §3.4)",
      tag: "command",
      access: "user",
      body: worktreeCreateRequestSchema,
      response: worktreeCreateDataSchema,
      status: 201,
      async handler({ auth, body }) {
        await access.order(auth, body.order_id);
        const order = await orderOf(body.order_id);
        return access.service().vault.createWorktree({
          theaterId: body.theater_id,
          runId: order.run_id,
          orderId: body.order_id,
          branch: body.branch,
        });
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/worktrees/:order_id/prepare",
      summary: "Write order.json, task.md and state.json into the order's worktree",
      tag: "command",
      access: "user",
      params: orderParams,
      body: worktreePrepareRequestSchema,
      response: z.object({ commit_sha: z.string() }),
      async handler({ auth, params, body }) {
        await access.order(auth, params.order_id);
        return access.service().vault.prepare(params.order_id, body.order, {
          ...(body.task_md === undefined ? {} : { taskMd: body.task_md }),
          ...(body.state === undefined ? {} : { state: body.state }),
        });
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/worktrees/:order_id/archive",
      summary: "Archive the order's worktree as a tag and a git bundle",
      tag: "command",
      access: "user",
      params: orderParams,
      body: worktreeArchiveRequestSchema.optional(),
      response: z.object({ tag: z.string(), bundle_path: z.string(), commit_sha: z.string() }),
      async handler({ auth, params, body }) {
        // The vault keeps what it archives as a tag and a bundle; zip and move would drop the branch's history.
        if (body?.policy !== undefined && body.policy !== "tag")
          throw new HttpError(
            "bad_request",
            `body.policy: this vault archives by tag (with a bundle), not ${body.policy}`,
            {
              field: "body.policy",
            },
          );
        await access.order(auth, params.order_id);
        return access.service().vault.archive(params.order_id);
      },
    }),
    defineRoute({
      method: "DELETE",
      url: "/api/worktrees/:order_id",
      summary: "Remove the order's worktree; refused while it holds work main lacks",
      tag: "command",
      access: "user",
      params: orderParams,
      response: deletedAnswerSchema,
      async handler({ auth, params }) {
        await access.order(auth, params.order_id);
        await access.service().vault.remove(params.order_id);
        return { deleted: params.order_id };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/integrate",
      summary: "Gate an order's worktree in a cell and promote it into main at most once (seed 000 §3.7)",
      tag: "command",
      access: "user",
      body: integrateRequestSchema,
      response: integrateDataSchema,
      async handler({ auth, body }) {
        await access.order(auth, body.order_id);
        // The path is read on the host: only the worktree the vault made for this order is integrated.
        if ((await orderOf(body.order_id)).worktree_path !== body.worktree_path)
          throw new InvalidInputError(
            "body.worktree_path",
            "must be the order's worktree, as the vault created it",
          );
        const { integrator } = access.service();
        if (!integrator)
          throw new HttpError("unavailable", "integration needs cells, and this host lends command none");
        return integrator.integrate({
          theaterId: body.theater_id,
          orderId: body.order_id,
          worktreePath: body.worktree_path,
          gateProfile: body.gate_profile,
        });
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/jobs",
      summary: "Queue an order's job for the workers by hand (seed 000 §3.5); admins only",
      tag: "command",
      access: "admin",
      body: workerJobRequestSchema,
      response: z.object({ id: z.string(), duplicate: z.boolean(), job: jobMessageSchema }),
      status: 201,
      async handler({ body }) {
        const { store, queue } = access.service();
        return enqueueJobRequest(store, queue, body);
      },
    }),
  ];
}
