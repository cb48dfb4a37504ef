import type { Logger } from "../core/index.js";
import type { Embedder, IndexWorkerMode, SearchHit } from "../memory/index.js";
import type { ChatMessage, ProviderRegistry, ProviderTuning } from "../providers/index.js";
import type { AgentEvent, AgentRunResult } from "./agent-event.js";
import type { PageFetcher } from "./tools/browser-tool.js";
import type { CommandClient } from "./tools/command-tool.js";
import type { IntegrationAccess } from "./tools/integration-client.js";

// What opening a runtime takes, and what one turn takes and gives back.

export interface AgentRuntimeOptions {
  env?: NodeJS.ProcessEnv;
  /** The bash tool's working directory and the second file root; default `[tools.file] workspace`. */
  workspace?: string;
  /** Where the file tool may go; default the brain, the workspace and `[tools.file] extra_roots`. */
  fileRoots?: string[];
  /**
   * The user's installed skills (/mnt/skills in a cell, read-only): listed in the system prompt, and a root the
   * file tool reads but never writes. Without it the agent is offered no skills.
   */
  skillsDir?: string;
  /** Lets the browser reach loopback and private addresses; default `[tools.browser] allow_private`. */
  allowPrivateNetwork?: boolean;
  providerTuning?: ProviderTuning;
  /** Replaces the providers of irowclaw.toml: in a cell, every provider is the warden's model proxy. */
  providers?: ProviderRegistry;
  /**
   * How the browser fetches: in a cell, through the warden, which fetches under the host's egress policy; on the
   * host, the warden's egress called directly. Without one, the browser refuses every URL.
   */
  pageFetcher?: PageFetcher;
  /** How the command tool reaches command: in a cell, the warden. Without one, it answers that command is off. */
  commandClient?: CommandClient;
  /** Variables the bash tool adds to each command's env, asked at each call (in a cell: the HTTPS proxy's). */
  toolEnv?: () => Record<string, string>;
  /**
   * The integrations (GitHub…) the warden runs with the user's credentials: in a cell, requests to the warden.
   * Without it, or for an integration the user has not configured, the agent gets no such tools.
   */
  integrations?: IntegrationAccess;
  /** Replaces the embedder `[indexing]` asks for (tests use a small deterministic one). */
  embedder?: Embedder;
  /** The model's context window and the head room that triggers the pre-compaction flush; default `[agent]`. */
  contextTokens?: number;
  reserveTokens?: number;
  maxSteps?: number;
  /** Index the brain when the runtime opens, so recall sees files edited while it was stopped. */
  indexOnOpen?: boolean;
  /** Keep the index fresh while the runtime is open (long sessions, the scheduler daemon). */
  watchBrain?: boolean;
  /** Whether large indexing passes read and embed on a worker thread (IndexerOptions.worker); default "auto". */
  indexWorker?: IndexWorkerMode;
  logger?: Logger;
  /** The runtime's clock (transcript times, memory entries, the prompt's current time); default the system's. */
  now?: () => Date;
}

export interface TurnRequest {
  prompt: string;
  agent?: string;
  /** The conversation so far (no system prompt); empty for a fresh session such as a cron job. */
  history?: ChatMessage[];
  sessionId?: string;
  signal?: AbortSignal;
  emit?: (event: AgentEvent) => void;
  maxSteps?: number;
  /** When the turn happens: in a cell, when the warden stamped the user's message; default the runtime's clock. */
  now?: Date;
  /** Record the turn in the session's transcript (default true; cron runs write their result to the log). */
  transcript?: boolean;
  /** Recall passages from memory for the prompt (default true; command's stateless order worker does not). */
  recall?: boolean;
}

export interface TurnResult extends AgentRunResult {
  sessionId: string;
  agent: string;
  provider: string;
  model: string;
  recalled: SearchHit[];
}
