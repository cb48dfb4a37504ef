import { type BrainMemory, type TranscriptTurn, transcriptPath } from "../memory/index.js";
import type { ChatMessage } from "../providers/index.js";
import type { AgentDatabase } from "./agent-db.js";

/**
 * Where each session's transcript lives and how a finished turn gets into it. The file is dated by the session's
 * first turn and stays there for the session's life (a conversation that runs past midnight is one file), so
 * the path is recorded in `agent_transcripts` when the first turn is written.
 */
export class TranscriptLog {
  constructor(
    private readonly db: AgentDatabase,
    private readonly memory: Pick<BrainMemory, "recordTurn">,
  ) {}

  /** The session's transcript path, if it has one yet. */
  pathOf(sessionId: string): string | undefined {
    return this.db
      .prepare<[string], { path: string }>("SELECT path FROM agent_transcripts WHERE session_id = ?")
      .get(sessionId)?.path;
  }

  /** Appends a turn; returns the transcript's brain-relative path. */
  async append(turn: TranscriptTurn): Promise<string> {
    const path = this.pathOf(turn.sessionId) ?? transcriptPath(turn.sessionId, turn.user.at);
    await this.memory.recordTurn(path, turn);
    this.db
      .prepare<[string, string, string, string]>(
        `INSERT INTO agent_transcripts (session_id, path, started_at, turns, updated_at) VALUES (?, ?, ?, 1, ?)
         ON CONFLICT (session_id) DO UPDATE SET turns = agent_transcripts.turns + 1, updated_at = excluded.updated_at`,
      )
      .run(turn.sessionId, path, turn.user.at.toISOString(), turn.assistant.at.toISOString());
    return path;
  }
}

/** A finished turn as the transcript tells it: the prompt, then what the agent said and which tools it used. */
export function transcriptTurn(input: {
  sessionId: string;
  agent: string;
  prompt: string;
  newMessages: readonly ChatMessage[];
  startedAt: Date;
  finishedAt: Date;
  note?: string;
}): TranscriptTurn {
  const texts: string[] = [];
  const tools: TranscriptTurn["assistant"]["tools"] = [];
  const failedCalls = new Set(
    input.newMessages.flatMap((m) => (m.role === "tool" && m.isError ? [m.toolCallId] : [])),
  );
  for (const message of input.newMessages) {
    if (message.role !== "assistant") continue;
    if (message.content.trim() !== "") texts.push(message.content);
    for (const call of message.toolCalls)
      tools.push({ tool: call.name, args: call.arguments, isError: failedCalls.has(call.id) });
  }
  return {
    sessionId: input.sessionId,
    agent: input.agent,
    user: { at: input.startedAt, text: input.prompt },
    assistant: {
      at: input.finishedAt,
      texts,
      tools,
      ...(input.note ? { note: input.note } : {}),
    },
  };
}
