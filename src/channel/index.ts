export { GUEST_HANDLERS, type GuestHandlerName, RUNTIME_FILE, WRITE_CACHE_ENV } from "./cell-start.js";
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
