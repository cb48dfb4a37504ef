import { randomUUID } from "node:crypto";
import {
  type BrainChangeOutcome,
  BrainHistory,
  type CertifiedRequest,
  digestOf,
  type HistoryEntry,
  type HostKey,
  issueCertificate,
  loadOrCreateHostKey,
} from "../../attest/index.js";
import type { BranchNode } from "../../contracts/index.js";
import type { Logger } from "../../core/index.js";
import { evidenceDirOf, storeCertificate, TURN_INDEX_FILE } from "./evidence-store.js";

/** One finished chat turn as the warden saw it. */
export interface CertifiedTurn {
  userId: string;
  sessionId: string;
  /** The conversation entry the reply was stored as, and the agent's turn id: what the chat maps a message by. */
  messageSeq?: number;
  turnId?: string;
  request: CertifiedRequest;
  /** The reply text the user was sent. */
  response: string;
  startedAt: Date;
  finishedAt: Date;
  /** The brain history's record of the turn; undefined when the warden keeps no history. */
  recorded: Promise<BrainChangeOutcome> | undefined;
}

/** What the chat core needs: hand a turn over and forget it; the warden settles what is pending on close. */
export interface TurnCertifying {
  certify(turn: CertifiedTurn): void;
  settle(): Promise<void>;
}

/**
 * Issues a loom-agent-run-v1 certificate ("prompt-run") for each chat turn, signed with the host key, and keeps
 * it in the user's evidence folder. It runs after the reply went out and after the turn's brain state was
 * recorded, so the certificate can pin the node the turn left: that node, its parent (the state the turn started
 * from) and its commit. Turns of one user are certified in order; a failure is logged, never thrown.
 */
export class TurnCertifier implements TurnCertifying {
  private key: HostKey | undefined;
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly options: { home: string; logger: Logger; workflowRef: string }) {}

  certify(turn: CertifiedTurn): void {
    const previous = this.queues.get(turn.userId) ?? Promise.resolve();
    // Past the current turn of the event loop at least: signing never runs before the reply is sent.
    const next = previous
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() =>
        this.certifyOne(turn).catch((error: Error) =>
          this.options.logger.warn(
            { user: turn.userId, session: turn.sessionId, reason: error.message },
            "a chat turn could not be certified",
          ),
        ),
      );
    this.queues.set(turn.userId, next);
    void next.finally(() => {
      if (this.queues.get(turn.userId) === next) this.queues.delete(turn.userId);
    });
  }

  async settle(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }

  private async certifyOne(turn: CertifiedTurn): Promise<void> {
    const outcome = await turn.recorded;
    if (outcome && !outcome.ok)
      this.options.logger.warn(
        { user: turn.userId, reason: outcome.error },
        "the turn's brain state was not recorded: its certificate pins none",
      );
    const state = outcome?.ok ? stateAfter(this.options.home, turn.userId, outcome.entry) : undefined;
    this.key ??= loadOrCreateHostKey(this.options.home);
    const jobId = randomUUID();
    const issued = issueCertificate(
      {
        jobId,
        mode: "prompt-run",
        request: turn.request,
        response: {
          sha256: digestOf(Buffer.from(turn.response)),
          locator: `artifact://responses/${jobId}.txt`,
        },
        runtime: {
          workflowRef: this.options.workflowRef,
          startedAt: turn.startedAt.toISOString(),
          finishedAt: turn.finishedAt.toISOString(),
        },
        commitShaRequired: state?.commit ?? null,
        ...(state ? { node: state.node } : {}),
      },
      this.key,
    );
    await storeCertificate({
      dir: evidenceDirOf(this.options.home, turn.userId),
      index: {
        file: TURN_INDEX_FILE,
        entry: {
          job_id: jobId,
          session_id: turn.sessionId,
          timestamp: issued.certificate.timestamp,
          ...(turn.messageSeq !== undefined ? { seq: turn.messageSeq } : {}),
          ...(turn.turnId ? { turn_id: turn.turnId } : {}),
          node_id: state?.node.node_id ?? null,
        },
      },
      issued,
      response: turn.response,
      ...(state ? { nodeOf: state.nodeOf } : {}),
      publicKeyPem: this.key.publicKeyPem,
    });
  }
}

/** The state a turn left: the node its record made, or the head when the turn changed nothing. */
function stateAfter(
  home: string,
  userId: string,
  entry: HistoryEntry | undefined,
): { node: BranchNode; commit: string | null; nodeOf: (id: string) => BranchNode } | undefined {
  const history = BrainHistory.open(home, userId);
  const head = entry?.node.node_id ?? history.head();
  if (head === undefined) return undefined;
  const node = entry?.node ?? history.nodes.get(head);
  const commit = entry?.commit ?? node.attestation.commit_sha_required ?? null;
  return { node, commit, nodeOf: (id) => history.nodes.get(id) };
}
