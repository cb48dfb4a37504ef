/** One order's prerequisites in a plan. */
export interface PlanDependency {
  order_id: string;
  depends_on: readonly string[];
}

export interface PlanProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * A cycle among the dependencies, as the order ids along it with the first repeated at the end
 * (`[a, b, a]`), or undefined when the orders can be run in some order.
 */
export function findDependencyCycle(dependencies: readonly PlanDependency[]): string[] | undefined {
  const edges = new Map<string, string[]>();
  for (const d of dependencies) edges.set(d.order_id, [...(edges.get(d.order_id) ?? []), ...d.depends_on]);
  const done = new Set<string>();
  const stack: string[] = [];
  const onStack = new Set<string>();

  const visit = (id: string): string[] | undefined => {
    if (onStack.has(id)) return [...stack.slice(stack.indexOf(id)), id];
    if (done.has(id)) return undefined;
    stack.push(id);
    onStack.add(id);
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    onStack.delete(id);
    done.add(id);
    return undefined;
  };

  for (const id of edges.keys()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * Every way a plan's dependency list fails to describe a runnable set of the orders it created: unknown or
 * duplicated ids, an order depending on itself, and cycles, which would leave orders waiting forever.
 */
export function checkPlanGraph(plan: {
  order_ids: readonly string[];
  dependencies: readonly PlanDependency[];
}): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const known = new Set<string>();
  plan.order_ids.forEach((id, i) => {
    if (known.has(id))
      problems.push({ path: ["order_ids", i], message: `must be unique: ${id} is listed twice` });
    known.add(id);
  });
  const described = new Set<string>();
  plan.dependencies.forEach((d, i) => {
    if (!known.has(d.order_id))
      problems.push({
        path: ["dependencies", i, "order_id"],
        message: `must be one of order_ids: ${d.order_id}`,
      });
    if (described.has(d.order_id))
      problems.push({
        path: ["dependencies", i, "order_id"],
        message: `must appear once in dependencies: ${d.order_id} is repeated`,
      });
    described.add(d.order_id);
    d.depends_on.forEach((dep, j) => {
      const path = ["dependencies", i, "depends_on", j];
      if (dep === d.order_id) problems.push({ path, message: "must not be the order itself" });
      else if (!known.has(dep)) problems.push({ path, message: `must be one of order_ids: ${dep}` });
    });
  });
  if (problems.length > 0) return problems;
  const cycle = findDependencyCycle(plan.dependencies);
  if (cycle) {
    const at = plan.dependencies.findIndex((d) => d.order_id === cycle[0]);
    problems.push({
      path: ["dependencies", at, "depends_on"],
      message: `must not form a cycle: ${cycle.join(" → ")}`,
    });
  }
  return problems;
}
