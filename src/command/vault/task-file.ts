import type { OrderFile } from "../../contracts/index.js";

/**
 * task.md: the order as a person (or the worker's model) reads it — objective, inputs, constraints and the
 * commands that decide acceptance. order.json stays the exact record; this file only renders it.
 */
export function renderTaskMarkdown(order: OrderFile): string {
  const { constraints } = order;
  const policy = constraints.tool_policy;
  const lines = [
    `# Order ${order.order_id}`,
    "",
    `Run ${order.run_id} in theater ${order.theater_id}; type ${order.type}; profile ${order.profile.name} (${order.profile.model}).`,
    "",
    "## Objective",
    "",
    order.objective,
    "",
    "## Inputs",
    "",
    ...renderInputs(order.inputs),
    "",
    "## Constraints",
    "",
    `- Time budget: ${constraints.budget_seconds} seconds`,
    `- Retries allowed: ${constraints.max_retries}`,
    `- Network: ${policy?.network ? "allowed" : "not allowed"}`,
    `- Files you may touch: ${policy?.fs_allowlist?.length ? policy.fs_allowlist.join(", ") : "this worktree only"}`,
    "",
    "## Acceptance",
    "",
    ...renderAcceptance(acceptanceCommands(order)),
    "",
  ];
  return lines.join("\n");
}

/**
 * The acceptance commands an order carries: seed 001's `acceptance_tests` (a dispatch's field, which an order
 * built from a dispatch keeps at its top level or in its inputs). Seed 000's order names none.
 */
export function acceptanceCommands(order: OrderFile): string[] {
  for (const candidate of [order.acceptance_tests, order.inputs.acceptance_tests]) {
    if (Array.isArray(candidate) && candidate.every((c) => typeof c === "string")) return candidate;
  }
  return [];
}

function renderInputs(inputs: Record<string, unknown>): string[] {
  const entries = Object.entries(inputs);
  if (entries.length === 0) return ["None."];
  return entries.flatMap(([key, value]) =>
    typeof value === "string" && !value.includes("\n")
      ? [`- **${key}**: ${value}`]
      : [`- **${key}**:`, "", "  ```", ...jsonOrText(value).map((line) => `  ${line}`), "  ```"],
  );
}

function jsonOrText(value: unknown): string[] {
  return (typeof value === "string" ? value : JSON.stringify(value, null, 2)).split("\n");
}

function renderAcceptance(commands: string[]): string[] {
  if (commands.length === 0) return ["No acceptance commands were given; the objective is the measure."];
  return ["Each of these commands must succeed in the worktree:", "", ...commands.map((c) => `- \`${c}\``)];
}
