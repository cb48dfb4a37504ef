import { issuesFromZod } from "../../core/index.js";
import type { ToolCall, ToolSpec } from "../../providers/index.js";
import type { AuditOutcome, AuditSink } from "../audit-log.js";
import type { PathPolicy } from "./path-policy.js";
import { type AgentTool, ToolRefusal, type ToolResult, toToolSpec } from "./tool-definition.js";

/** A tool call's result with how the audit trail classified it. */
export interface ToolOutcome extends ToolResult {
  outcome: AuditOutcome;
}

/** The tools of one agent, as the loop uses them: what to show the model, and how to run a call. */
export interface ToolBox {
  specs(): ToolSpec[];
  run(call: ToolCall, scope: { signal: AbortSignal; sessionId: string }): Promise<ToolOutcome>;
}

export interface ToolBoxOptions {
  tools: AgentTool[];
  /** Names the agent may use (irowclaw.toml ceiling narrowed by the profile); others are refused and audited. */
  allow: readonly string[];
  agent: string;
  pathPolicy: PathPolicy;
  audit: AuditSink;
  /** Longest result text handed back to the model; the rest is cut so one call cannot flood the context. */
  maxResultChars?: number;
  now?: () => Date;
}

/**
 * Runs tool calls for the loop: checks the allow list, parses and validates the arguments against the tool's
 * schema, executes, and audits every call whatever its outcome. Nothing it does throws: a failure is an
 * `isError` result the model reads and can correct.
 */
export function createToolBox(options: ToolBoxOptions): ToolBox {
  const byName = new Map(options.tools.map((t) => [t.name, t]));
  const isAllowed = (t: AgentTool) => options.allow.includes(t.kind ?? t.name);
  const allowed = options.tools.filter(isAllowed);
  const specs = allowed.map(toToolSpec);
  const maxChars = options.maxResultChars ?? 32_000;
  const now = options.now ?? (() => new Date());

  async function execute(
    tool: AgentTool | undefined,
    call: ToolCall,
    signal: AbortSignal,
    sessionId: string,
  ) {
    if (!tool) {
      const known = allowed.map((t) => t.name).join(", ") || "none";
      return outcome("unknown", true, `there is no tool named ${call.name}; available tools: ${known}`);
    }
    if (!isAllowed(tool)) {
      return outcome("denied", true, `tool ${tool.name} is not allowed for agent ${options.agent}`);
    }
    let raw: unknown;
    try {
      raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    } catch (error) {
      return outcome(
        "invalid",
        true,
        `the arguments are not valid JSON (${(error as Error).message}); send a JSON object`,
      );
    }
    const parsed = tool.parameters.safeParse(raw);
    if (!parsed.success) {
      const problems = issuesFromZod(parsed.error).map((i) => `${i.path}: ${i.message}`);
      return outcome("invalid", true, `invalid arguments for ${tool.name}:\n${problems.join("\n")}`);
    }
    try {
      const ctx = {
        signal,
        pathPolicy: options.pathPolicy,
        audit: options.audit,
        sessionId,
        agent: options.agent,
      };
      const result = await tool.execute(parsed.data, ctx);
      return { ...result, outcome: result.isError ? "error" : "ok" } satisfies ToolOutcome;
    } catch (error) {
      if (error instanceof ToolRefusal) return outcome("refused", true, `refused: ${error.message}`);
      return outcome("error", true, `${tool.name} failed: ${(error as Error).message}`);
    }
  }

  return {
    specs: () => specs,
    async run(call, { signal, sessionId }) {
      const started = now();
      const t0 = performance.now();
      const result = await execute(byName.get(call.name), call, signal, sessionId);
      const content =
        result.content.length > maxChars
          ? `${result.content.slice(0, maxChars)}\n[result cut at ${maxChars} characters]`
          : result.content;
      await options.audit.record({
        at: started,
        sessionId,
        agent: options.agent,
        tool: call.name || "(none)",
        callId: call.id,
        args: result.auditArgs ?? call.arguments,
        outcome: result.outcome,
        isError: result.isError,
        durationMs: performance.now() - t0,
        summary: content,
      });
      return { ...result, content };
    },
  };
}

function outcome(kind: AuditOutcome, isError: boolean, content: string): ToolOutcome {
  return { outcome: kind, isError, content };
}
