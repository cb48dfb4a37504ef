import type {
  AssistantMessage,
  ChatMessage,
  ProviderFailure,
  TokenUsage,
  ToolCall,
} from "../providers/index.js";
import type { ToolOutcome } from "./tools/tool-box.js";

/** The conversation a run continues: everything but the system prompt, which is rebuilt for every turn. */
export interface AgentContext {
  sessionId: string;
  model: string;
  systemPrompt: string;
  messages: ChatMessage[];
}

/**
 * Why a run ended: `stop` the model answered, `length` it hit its output limit, `max_steps` it still wanted
 * tools after the last allowed step, `aborted` the signal fired, `error` the provider failed.
 */
export type AgentStopReason = "stop" | "length" | "max_steps" | "aborted" | "error";

export interface AgentRunResult {
  /** The whole conversation after the run, to store and to continue from (a crashed run resumes from it). */
  messages: ChatMessage[];
  /** What this run added. */
  newMessages: ChatMessage[];
  /** The final assistant text. */
  text: string;
  stopReason: AgentStopReason;
  error?: ProviderFailure;
  steps: number;
  toolCalls: number;
  /** Summed over every model call of the run. */
  usage: TokenUsage;
  /** Size of the context at the last call (its input plus output tokens): what compaction watches. */
  contextTokens: number;
  compactions: number;
}

/** What the loop reports while it runs; the CLI prints these and the cell turns them into protocol messages. */
export type AgentEvent =
  | { type: "step_start"; step: number }
  | { type: "text_delta"; step: number; delta: string }
  | { type: "tool_call"; step: number; call: ToolCall }
  | { type: "tool_result"; step: number; call: ToolCall; result: ToolOutcome }
  | { type: "usage"; step: number; usage: TokenUsage; total: TokenUsage }
  | { type: "step_end"; step: number; message: AssistantMessage }
  | {
      type: "compaction";
      step: number;
      compacted: boolean;
      tokensBefore: number;
      messagesBefore: number;
      messagesAfter: number;
      error?: string;
    }
  | { type: "done"; result: AgentRunResult };
