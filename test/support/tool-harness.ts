import { type AgentTool, createToolBox, MemoryAuditLog, PathPolicy } from "../../src/agent/index.js";

/** Runs tools the way the loop does (allow list, validation, audit) without a model, for refusal tests. */
export function toolHarness(
  tools: AgentTool[],
  roots: string[],
  allow: string[] = tools.map((t) => t.name),
  policy: { readOnly?: string[] } = {},
) {
  const audit = new MemoryAuditLog();
  const pathPolicy = new PathPolicy(roots, policy);
  const box = createToolBox({ tools, allow, agent: "tester", pathPolicy, audit });
  let n = 0;
  return {
    audit,
    box,
    call(name: string, args: unknown, signal: AbortSignal = new AbortController().signal) {
      const text = typeof args === "string" ? args : JSON.stringify(args);
      return box.run({ id: `call-${++n}`, name, arguments: text }, { signal, sessionId: "session-1" });
    },
  };
}
