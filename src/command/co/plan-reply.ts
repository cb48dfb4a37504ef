import { z } from "zod";
import {
  fieldRule,
  findDependencyCycle,
  isJsonObject,
  jsonObject,
  orderConstraintsSchema,
  orderProfileSchema,
  orderTypeSchema,
} from "../../contracts/index.js";
import { type Issue, issuesFromZod, jsonPath, ValidationError } from "../../core/index.js";

/** More orders than this is a plan no one can supervise; the planner should split the objective instead. */
export const MAX_PLAN_ORDERS = 32;

/** A plan-local name the model gives an order so that other orders can depend on it (`"research"`, `"a1"`). */
const planKey = z
  .string(fieldRule("must be a string"))
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    "must be 1 to 64 letters, digits, _ . or -, starting with a letter or digit",
  );

const command = z.string(fieldRule("must be a string")).regex(/\S/, "must be a non-empty command");

const notBlank = (what: string) => z.string(fieldRule(`must be ${what}`)).regex(/\S/, "must not be blank");

/**
 * One order as the planning model writes it. Seed 000 §3.2 ("Produces 1-N orders … created order_ids and
 * dependencies") and §2's order.json name the fields; the model names its orders with keys, because the CO, not
 * the model, mints order ids. constraints and profile may be partial or absent: the CO fills them from its
 * defaults. acceptance_commands are what integration runs as gates (seed 001 `acceptance_tests`); research and
 * writing orders may have none.
 */
const plannedOrderReplySchema = z.looseObject({
  key: planKey,
  type: orderTypeSchema,
  objective: notBlank("a string"),
  depends_on: z.array(planKey, fieldRule("must be an array of order keys")).default([]),
  acceptance_commands: z.array(command, fieldRule("must be an array of commands")).default([]),
  inputs: jsonObject.default({}),
  constraints: orderConstraintsSchema.partial().optional(),
  profile: orderProfileSchema.partial().optional(),
});

const planReplySchema = z.looseObject({
  orders: z
    .array(plannedOrderReplySchema, fieldRule("must be an array of orders"))
    .min(1, "must hold at least one order")
    .max(MAX_PLAN_ORDERS, `must hold at most ${MAX_PLAN_ORDERS} orders`),
});

export type PlanReply = z.output<typeof planReplySchema>;
export type PlannedOrderReply = PlanReply["orders"][number];

/**
 * A plan as the planning model answered it, checked: every field's rule, then the dependency graph (unique keys,
 * dependencies on orders of this plan only, none on itself, no cycle), because an order that waits on an order
 * that never comes would hold the run open forever. Models write `id` as often as `key`, and sometimes answer
 * the order list alone; both are read as the plan they mean. Throws a ValidationError naming every bad field.
 */
export function parsePlanReply(raw: unknown): PlanReply {
  const result = planReplySchema.safeParse(normalise(raw));
  if (!result.success) throw new ValidationError("plan", issuesFromZod(result.error));
  const issues = [...networkIssues(result.data), ...graphIssues(result.data)];
  if (issues.length > 0) throw new ValidationError("plan", issues);
  return result.data;
}

function normalise(raw: unknown): unknown {
  const plan = Array.isArray(raw) ? { orders: raw } : raw;
  if (!isJsonObject(plan) || !Array.isArray(plan.orders)) return plan;
  const orders = plan.orders.map((o: unknown) =>
    isJsonObject(o) && o.key === undefined && o.id !== undefined ? { ...o, key: o.id } : o,
  );
  return { ...plan, orders };
}

const issue = (path: Array<string | number>, message: string): Issue => ({
  path: jsonPath(path),
  message,
  code: "custom",
});

/** Orders run without network (seed 000 §2 and §3.5 `"tool_policy": { "network": false }`): a plan cannot grant it. */
function networkIssues(plan: PlanReply): Issue[] {
  return plan.orders.flatMap((o, i) =>
    o.constraints?.tool_policy?.network === true
      ? [
          issue(
            ["orders", i, "constraints", "tool_policy", "network"],
            "must be false: orders run without network",
          ),
        ]
      : [],
  );
}

function graphIssues(plan: PlanReply): Issue[] {
  const issues: Issue[] = [];
  const keys = new Set<string>();
  plan.orders.forEach((o, i) => {
    if (keys.has(o.key)) issues.push(issue(["orders", i, "key"], `must be unique: ${o.key} is used twice`));
    keys.add(o.key);
  });
  plan.orders.forEach((o, i) => {
    o.depends_on.forEach((dep, j) => {
      const path = ["orders", i, "depends_on", j];
      if (dep === o.key) issues.push(issue(path, "must not be the order's own key"));
      else if (!keys.has(dep))
        issues.push(issue(path, `must be the key of another order in this plan: ${dep}`));
    });
  });
  if (issues.length > 0) return issues;
  const cycle = findDependencyCycle(plan.orders.map((o) => ({ order_id: o.key, depends_on: o.depends_on })));
  if (cycle) {
    const at = plan.orders.findIndex((o) => o.key === cycle[0]);
    issues.push(issue(["orders", at, "depends_on"], `must not form a cycle: ${cycle.join(" → ")}`));
  }
  return issues;
}
