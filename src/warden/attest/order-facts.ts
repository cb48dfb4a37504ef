import { createHash } from "node:crypto";
import { type CertifiedRequest, digestOf } from "../../attest/index.js";
import { plannedOrderSchema } from "../../command/index.js";
import type { BranchNode } from "../../contracts/index.js";
import { hashCanonical } from "../../core/index.js";
import type { EventStore, RecordedEvent } from "../../ledger/index.js";

/** What an integrated order's certificate says, read from the order's events up to its INTEGRATED. */
export interface IntegratedOrder {
  theaterId: string;
  /** The order as planned (its ORDER_CREATED): what was asked of it. */
  request: CertifiedRequest;
  /** The order's result as its last AAR summed it up ("" when its AAR carried no summary). */
  response: string;
  startedAt: string;
  finishedAt: string;
  /** The order's events through INTEGRATED: the state of the order the node pins. */
  stream: RecordedEvent[];
}

export async function readIntegratedOrder(
  store: EventStore,
  integrated: RecordedEvent & { order_id: string; theater_id: string },
): Promise<IntegratedOrder> {
  const stream = await store.read({
    orderId: integrated.order_id,
    through: integrated.position,
    limit: 100_000,
  });
  const created = stream.find((e) => e.type === "ORDER_CREATED");
  const started = stream.find((e) => e.type === "ORDER_STARTED");
  const summary = stream.filter((e) => e.type === "AAR_WRITTEN").at(-1)?.payload.summary;
  return {
    theaterId: integrated.theater_id,
    request: plannedRequest(integrated, created?.payload ?? {}),
    response: typeof summary === "string" ? summary : "",
    startedAt: (started ?? created ?? integrated).ts,
    finishedAt: integrated.ts,
    stream,
  };
}

/**
 * The order as the CO planned it: its objective as the one message, its profile's name and model, its tool
 * policy, and the whole plan (type, inputs, dependencies, acceptance commands, constraints) with its ids. An
 * order another writer created by hand carries its payload as it is, naming no profile or model.
 */
function plannedRequest(event: RecordedEvent, payload: Record<string, unknown>): CertifiedRequest {
  const ids = { order_id: event.order_id, run_id: event.run_id, theater_id: event.theater_id };
  const plan = plannedOrderSchema.safeParse(payload);
  if (!plan.success)
    return {
      messages: [],
      profile: null,
      model: "unplanned",
      tool_policy: null,
      order: { ...ids, ...payload },
    };
  return {
    messages: [{ role: "user", content: plan.data.objective }],
    profile: plan.data.profile.name,
    model: plan.data.profile.model,
    tool_policy: plan.data.constraints.tool_policy ?? null,
    order: { ...ids, ...plan.data },
  };
}

/**
 * The node an order's certificate attests: the theater's tree at the merge commit (its workspace, hashed as git
 * lists it, so every file's blob is pinned) and the order's events (its state), chained after the run's order
 * certified before it. Orders run without network, which its token says.
 */
export function orderNode(o: {
  nodeId: string;
  parentNodeId: string | null;
  theaterId: string;
  commit: string;
  /** `git ls-tree -r --full-tree <commit>` of the theater's repository. */
  treeListing: string;
  order: IntegratedOrder;
  step: number;
}): BranchNode {
  const last = o.order.stream.at(-1);
  return {
    schema_version: "agent_swarm-node-v1",
    node_id: o.nodeId,
    parent_node_id: o.parentNodeId,
    workspace: {
      artifact_hash: digestOf(Buffer.from(o.treeListing)),
      artifact_ref: `theater://${o.theaterId}/commits/${o.commit}`,
    },
    state_db: {
      state_id: uuidOf(`state:${o.nodeId}`),
      snapshot_hash: hashCanonical(o.order.stream),
      snapshot_ref: `ledger://orders/${last?.order_id}/events?through=${last?.position}`,
      ratchet_step: o.step,
      engine: { kind: "sqlite-serialized", schema_version: "loom-state-v1" },
    },
    network: { route_mode: "direct", token: { token_ref: "none", ratchet_step: o.step, expires_at: null } },
    attestation: { commit_sha_required: o.commit, artifact_hash: null, proof_ref: null },
  };
}

/**
 * A UUID (version 8, name-based) from a name: an order's job and node ids come from its INTEGRATED event, so a
 * certificate a stop cut off is issued again under the same ids, never beside them.
 */
export function uuidOf(name: string): string {
  const bytes = createHash("sha256").update(`ironclaw-order-certificate:${name}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
