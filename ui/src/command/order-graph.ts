import type { OrderSnapshot, RunOrder } from "../api/command-endpoints.js";

export interface GraphNode {
  order: RunOrder;
  /** Column: how many orders stand before this one on its longest chain of dependencies. */
  layer: number;
  /** Row within the column. */
  row: number;
}

/** A dependency: `to` waits on `from`. */
export interface GraphEdge {
  from: string;
  to: string;
}

export interface OrderGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  layers: number;
  rows: number;
}

/**
 * A run's orders laid out left to right by dependency: an order stands one column after the latest order it waits
 * on, so every edge points rightwards. Dependencies on orders the run does not list are left out, and a cycle
 * (which the planner refuses, but a hand-written ledger could hold) is cut where it closes rather than looping.
 */
export function layoutOrders(orders: readonly RunOrder[]): OrderGraph {
  const byId = new Map(orders.map((o) => [o.order_id, o]));
  const edges = orders.flatMap((o) =>
    (o.depends_on ?? []).filter((d) => byId.has(d)).map((d) => ({ from: d, to: o.order_id })),
  );
  const layerOf = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (id: string): number => {
    const known = layerOf.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const deps = (byId.get(id)?.depends_on ?? []).filter((d) => byId.has(d));
    const layer = deps.length === 0 ? 0 : Math.max(...deps.map(depth)) + 1;
    visiting.delete(id);
    layerOf.set(id, layer);
    return layer;
  };
  const rowsUsed: number[] = [];
  const nodes = orders.map((order) => {
    const layer = depth(order.order_id);
    const row = rowsUsed[layer] ?? 0;
    rowsUsed[layer] = row + 1;
    return { order, layer, row };
  });
  return { nodes, edges, layers: rowsUsed.length, rows: Math.max(0, ...rowsUsed) };
}

/** What an order's node shows and is coloured by: INTEGRATED once merged, else the order's status. */
export function stateOf(order: RunOrder, snapshot: OrderSnapshot | undefined): string {
  const integration = snapshot?.integration_state ?? order.integration_state;
  return integration === "INTEGRATED" ? "INTEGRATED" : order.status;
}
