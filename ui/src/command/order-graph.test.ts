import { describe, expect, it } from "vitest";
import type { RunOrder } from "../api/command-endpoints.js";
import { order } from "../testing/command-server.js";
import { layoutOrders, stateOf } from "./order-graph.js";

const o = (order_id: string, depends_on: string[] = []): RunOrder => ({
  order_id,
  status: "QUEUED",
  depends_on,
});

describe("laying out a run's orders", () => {
  it("puts each order one column after the latest order it waits on, with an edge from each dependency", () => {
    const graph = layoutOrders([o("a"), o("b"), o("c", ["a"]), o("d", ["c", "b"])]);
    expect(graph.nodes.map((n) => [n.order.order_id, n.layer, n.row])).toEqual([
      ["a", 0, 0],
      ["b", 0, 1],
      ["c", 1, 0],
      ["d", 2, 0],
    ]);
    expect(graph.edges).toEqual([
      { from: "a", to: "c" },
      { from: "c", to: "d" },
      { from: "b", to: "d" },
    ]);
    expect([graph.layers, graph.rows]).toEqual([3, 2]);
  });

  it("leaves out dependencies on orders the run does not list, and does not loop on a cycle", () => {
    const graph = layoutOrders([o("a", ["b"]), o("b", ["a"]), o("c", ["elsewhere"])]);
    expect(graph.edges).toEqual([
      { from: "b", to: "a" },
      { from: "a", to: "b" },
    ]);
    expect(graph.nodes.find((n) => n.order.order_id === "c")?.layer).toBe(0);
  });

  it("shows an order merged by integration as INTEGRATED, otherwise by its status", () => {
    const done: RunOrder = { order_id: "a", status: "COMPLETED" };
    expect(stateOf(done, undefined)).toBe("COMPLETED");
    expect(stateOf(done, order("a", { status: "COMPLETED", integration_state: "INTEGRATED" }))).toBe(
      "INTEGRATED",
    );
  });
});
