import { describe, expect, it } from "vitest";
import { checkPlanGraph, findDependencyCycle } from "./plan-graph.js";

describe("findDependencyCycle", () => {
  it("finds no cycle in a chain or a diamond", () => {
    expect(findDependencyCycle([{ order_id: "b", depends_on: ["a"] }])).toBeUndefined();
    expect(
      findDependencyCycle([
        { order_id: "b", depends_on: ["a"] },
        { order_id: "c", depends_on: ["a"] },
        { order_id: "d", depends_on: ["b", "c"] },
      ]),
    ).toBeUndefined();
  });

  it("returns the ids along a cycle, closing on the first", () => {
    const cycle = findDependencyCycle([
      { order_id: "a", depends_on: ["b"] },
      { order_id: "b", depends_on: ["c"] },
      { order_id: "c", depends_on: ["a"] },
    ]);
    expect(cycle).toEqual(["a", "b", "c", "a"]);
  });

  it("finds a cycle that does not start at the first listed order", () => {
    const cycle = findDependencyCycle([
      { order_id: "a", depends_on: ["b"] },
      { order_id: "b", depends_on: ["c"] },
      { order_id: "c", depends_on: ["b"] },
    ]);
    expect(cycle).toEqual(["b", "c", "b"]);
  });
});

describe("checkPlanGraph", () => {
  it("accepts orders without dependencies", () => {
    expect(checkPlanGraph({ order_ids: ["a", "b"], dependencies: [] })).toEqual([]);
  });

  it("reports each unknown id at its own path", () => {
    const problems = checkPlanGraph({
      order_ids: ["a", "b"],
      dependencies: [{ order_id: "x", depends_on: ["a", "y"] }],
    });
    expect(problems.map((p) => p.path)).toEqual([
      ["dependencies", 0, "order_id"],
      ["dependencies", 0, "depends_on", 1],
    ]);
  });

  it("reports a cycle at the depends_on of the order where it closes", () => {
    const problems = checkPlanGraph({
      order_ids: ["a", "b", "c"],
      dependencies: [
        { order_id: "a", depends_on: ["c"] },
        { order_id: "c", depends_on: ["b"] },
        { order_id: "b", depends_on: ["c"] },
      ],
    });
    expect(problems).toEqual([
      { path: ["dependencies", 1, "depends_on"], message: "must not form a cycle: c → b → c" },
    ]);
  });
});
