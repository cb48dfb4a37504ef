import type { ProtocolMessage } from "../contracts/cell/index.js";

type HeaderKey = "user_id" | "session_id" | "msg_id" | "timestamp";
/** A message as a caller writes it: the peer fills in the header (ids, msg_id, timestamp). */
export type MessageBody = ProtocolMessage extends infer M
  ? M extends ProtocolMessage
    ? Omit<M, HeaderKey> & Partial<Pick<M, "user_id" | "session_id">>
    : never
  : never;

export interface PeerOptions {
  userId: string;
  sessionId: string;
  maxFrameBytes?: number;
  /** How often to send a Heartbeat; 0 turns heartbeats and the silence check off. */
  heartbeatMs?: number;
  /** The peer is declared dead after this many heartbeat periods without any frame from it. */
  missedHeartbeats?: number;
  /**
   * The silence allowed until the other side first says Ready, if longer than the heartbeat rule's: a cell
   * loading its agent and brain may hold its event loop for many seconds on a busy or emulated host, and the
   * greeting's own deadline bounds that wait.
   */
  startupSilenceMs?: number;
  /**
   * The first msg_id this side sends (default 0): a peer that takes over a channel the other side has already
   * seen numbered (a cell resumed from its saved memory) goes on from where the last one stopped.
   */
  firstMsgId?: number;
  /** Refuse inbound messages addressed to another user (the guest side sets this). */
  enforceUserId?: boolean;
  /** A blank cell: take the user from the first Hello, and no work before it (see PeerIdentity). */
  userFromHello?: boolean;
  /** Bad frames tolerated within badFrameWindowMs before the stream is judged hostile or broken (default 64). */
  maxBadFrames?: number;
  /** The window bad frames are counted over (default 10 s): valid frames in between do not reset it. */
  badFrameWindowMs?: number;
  /**
   * Bytes this side may hold for a reader that does not keep up (default 4 frames, at least 32 MiB). Past it
   * the channel is closed: a peer that never reads must not make this process buffer without bound.
   */
  maxQueuedBytes?: number;
}

export interface PeerStats {
  framesIn: number;
  framesOut: number;
  bytesIn: number;
  bytesOut: number;
  badFramesIn: number;
  /** Error answers to bad frames not sent because the other side was not reading (back-pressure). */
  answersDropped: number;
}

export interface CloseInfo {
  reason: string;
  /** True when the close was asked for (close() or the other side ending cleanly). */
  clean: boolean;
}
