export { GUEST_HANDLERS, type GuestHandlerName, RUNTIME_FILE, WRITE_CACHE_ENV } from "./cell-start.js";
export { type EgressBody, EgressStream, type EgressStreamLimits } from "./egress-stream.js";
export { EGRESS_DEFAULTS, EgressStreams, type EgressStreamsOptions } from "./egress-streams.js";
export {
  DEFAULT_MAX_FRAME_BYTES,
  encodeFrame,
  FrameDecoder,
  type FrameEvent,
  FrameTooLargeError,
} from "./frame-codec.js";
export {
  ChannelClosedError,
  type CloseInfo,
  isFinalReply,
  type MessageBody,
  type PeerOptions,
  type PeerStats,
  ProtocolPeer,
  ReplyTimeoutError,
} from "./protocol-peer.js";
