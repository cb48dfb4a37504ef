import { sha256Hex } from "../core/index.js";
import type { BrainLayout } from "./brain-layout.js";
import { appendSection, type Remembered } from "./remember.js";
import { oneLine, quoteForBrain } from "./transcript-text.js";

/** Where conversations are kept: `sessions/YYYY-MM-DD/<session-id>.md`, by the date of the session's first turn. */
export const SESSIONS_DIR = "sessions";

/** One tool call of a turn, as the transcript summarises it. */
export interface TranscriptToolCall {
  tool: string;
  /** The arguments as the model sent them (JSON text); clipped to one line. */
  args: string;
  isError: boolean;
}

/** One turn of a conversation: what the user said and what the agent answered, with the tools it used. */
export interface TranscriptTurn {
  sessionId: string;
  agent: string;
  user: { at: Date; text: string };
  assistant: {
    at: Date;
    /** The agent's text in the order it was said (text before tool calls, then the answer). */
    texts: string[];
    tools: TranscriptToolCall[];
    /** Why the turn ended early, when it did (an error, a stop). */
    note?: string;
  };
}

const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
const MAX_TOOL_ARGS = 160;

/**
 * The brain-relative transcript path of a session that started at `startedAt` (UTC date, as daily logs are).
 * A session id that is not a plain file name (it may hold any non-space character) is made one, with a hash
 * of the original so two such ids never share a file.
 */
export function transcriptPath(sessionId: string, startedAt: Date): string {
  const name = SAFE_NAME.test(sessionId)
    ? sessionId
    : `${sessionId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 80)}-${sha256Hex(sessionId).slice(0, 12)}`;
  return `${SESSIONS_DIR}/${startedAt.toISOString().slice(0, 10)}/${name}.md`;
}

/** The `YYYY-MM-DD` a transcript path is dated by, or undefined for any other path. */
export function transcriptDate(path: string): string | undefined {
  return /^sessions\/(\d{4}-\d{2}-\d{2})\/[^/]+\.md$/.exec(path)?.[1];
}

/**
 * The markdown of one turn: a `## <time> — user` and a `## <time> — assistant` section, each its own chunk, so
 * a search hit names the session (the file) and the turn (the heading). Times are UTC; a turn on a later day
 * than the file's date carries its date too. Each tool call is one line: tool, outcome and arguments.
 */
export function formatTranscriptTurn(turn: TranscriptTurn, fileDate: string): string {
  const user = `## ${stamp(turn.user.at, fileDate)} — user\n\n${quoteForBrain(turn.user.text) || "_(empty)_"}\n`;
  const lines: string[] = [];
  for (const call of turn.assistant.tools) {
    const outcome = call.isError ? "failed" : "ok";
    lines.push(`- tool \`${call.tool}\` ${outcome}: \`${oneLine(call.args, MAX_TOOL_ARGS)}\``);
  }
  const body = [
    lines.join("\n"),
    ...turn.assistant.texts.map(quoteForBrain),
    turn.assistant.note ? `_${oneLine(turn.assistant.note, 300).replace(/_/g, "\\_")}_` : "",
  ].filter((part) => part !== "");
  const assistant = `## ${stamp(turn.assistant.at, fileDate)} — assistant\n\n${body.join("\n\n") || "_(no answer)_"}\n`;
  return `${user}\n${assistant}`;
}

/** The first line of a new transcript file. */
export function transcriptHeader(turn: TranscriptTurn, fileDate: string): string {
  return `# Session ${oneLine(turn.sessionId, 128)} — ${fileDate}\n\nAgent: ${oneLine(turn.agent, 64)}\n`;
}

/** Appends a turn to the session's transcript at `path`, creating the file with its header on the first turn. */
export function appendTranscriptTurn(
  brain: BrainLayout,
  path: string,
  turn: TranscriptTurn,
): Promise<Remembered> {
  const fileDate = transcriptDate(path) ?? turn.user.at.toISOString().slice(0, 10);
  return appendSection(brain, path, transcriptHeader(turn, fileDate), formatTranscriptTurn(turn, fileDate));
}

function stamp(at: Date, fileDate: string): string {
  const iso = at.toISOString();
  const time = iso.slice(11, 19);
  return iso.slice(0, 10) === fileDate ? time : `${iso.slice(0, 10)} ${time}`;
}
