import type {
  FileOpRequest,
  FileOpResult,
  Hello,
  JobStatus,
  JobTrigger,
  QueryRequest,
  QueryResult,
  TokenUsage,
  ToolResult,
  TurnComplete,
  UserMessage,
} from "../contracts/cell/index.js";

/** One step of a turn as the handler produces it; the server turns these into protocol messages. */
export type TurnEvent =
  | { kind: "delta"; delta: string }
  | {
      kind: "tool";
      callId: string;
      tool: string;
      isError: boolean;
      content: string;
      outcome?: ToolResult["outcome"];
      /** The arguments as the model sent them (raw JSON text) and how long the call took, for the chat view. */
      args?: string;
      durationMs?: number;
    }
  | {
      kind: "final";
      text: string;
      usage?: TokenUsage;
      stopReason?: "stop" | "length" | "aborted" | "error";
      error?: string;
      /** The failed model call that ended the turn, passed back to the warden as its proxy reported it. */
      failure?: TurnComplete["failure"];
    };

/** A job's progress as the handler reports it. */
export type JobProgress = Pick<JobStatus, "status" | "result_ref" | "error">;

/** The fields of a QueryResult that the handler decides: an answer, or why there is none. */
export type QueryOutcome = Pick<QueryResult, "answer" | "error">;

/** The fields of a FileOpResult that the handler decides; the server adds the header and reply_to. */
export type FileOpOutcome = Pick<FileOpResult, "entries" | "content" | "encoding" | "error">;

export interface GuestContext {
  userId: string;
  brainRoot: string;
  /** Aborted when the channel closes or the cell is stopping. */
  signal: AbortSignal;
  /** Writes raw bytes to the channel; only the test handlers use it, to prove the host survives garbage. */
  writeRaw(bytes: Uint8Array): void;
}

/**
 * What the inmate runtime plugs into the protocol server. Kept this small so the agent runtime, a job runner
 * or a test double can serve a cell without knowing about frames.
 */
export interface CellHandler {
  readonly name: string;
  onUserMessage(message: UserMessage, context: GuestContext): AsyncIterable<TurnEvent>;
  onFileOp(request: FileOpRequest, context: GuestContext): Promise<FileOpOutcome>;
  onJobTrigger(trigger: JobTrigger, context: GuestContext): AsyncIterable<JobProgress>;
  /** Questions about the brain database (search, index status, cron state, tool audit); optional for test handlers. */
  onQuery?(request: QueryRequest, context: GuestContext): Promise<QueryOutcome>;
  /**
   * Called once when the channel is up, with a way to send messages nobody asked for: the scheduler's own
   * runs report their JobStatus this way (seed 003 §8.2: an optional notification for the warden to relay).
   */
  attach?(notify: (status: JobProgress & { job_id: string }) => void): void;
  /** What the warden's Hello tells the cell (which integrations its user has), taken before Ready is sent. */
  onHello?(hello: Hello): void | Promise<void>;
  /** What the cell offers, for the Ready answer to the warden's Hello. */
  describe?(): { agents: { name: string; provider: string; model: string }[]; defaultAgent?: string };
  /** Called once before the cell exits: flush and close the brain database here. */
  close?(): Promise<void>;
}
