import { z } from "zod";
import type { ToolSpec } from "../../providers/index.js";
import type { AuditSink } from "../audit-log.js";
import type { PathPolicy } from "./path-policy.js";

export { ToolRefusal } from "./tool-refusal.js";

/** What every tool call gets from the runtime: the turn's abort signal, the cell's path policy, the audit sink. */
export interface ToolContext {
  signal: AbortSignal;
  pathPolicy: PathPolicy;
  audit: AuditSink;
  sessionId: string;
  agent: string;
}

/** A tool's answer. `content` goes back to the model; `details` stay with the runtime (audit, tests, UI). */
export interface ToolResult {
  content: string;
  isError: boolean;
  details?: Record<string, unknown>;
  /**
   * What the audit trail, the transcript and the chat view record as the call's arguments instead of the
   * model's: for a call whose arguments must not be kept (the words a `forget` is asked to remove).
   */
  auditArgs?: string;
}

export interface AgentTool<S extends z.ZodType = z.ZodType> {
  name: string;
  /** The allow-list entry that grants this tool when it is not its name: one entry grants a family (`github`). */
  kind?: string;
  description: string;
  parameters: S;
  execute(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

/** Declares a tool once: its schema validates the model's arguments and is what the model is shown. */
export function defineTool<S extends z.ZodType>(tool: AgentTool<S>): AgentTool<S> {
  return tool;
}

export function ok(content: string, details?: Record<string, unknown>): ToolResult {
  return details === undefined ? { content, isError: false } : { content, isError: false, details };
}

export function failed(content: string, details?: Record<string, unknown>): ToolResult {
  return details === undefined ? { content, isError: true } : { content, isError: true, details };
}

/** The tool as the model sees it: name, description and the JSON Schema of its input. */
export function toToolSpec(tool: AgentTool): ToolSpec {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.parameters, { io: "input" }) as Record<
    string,
    unknown
  >;
  return { name: tool.name, description: tool.description, parameters };
}
