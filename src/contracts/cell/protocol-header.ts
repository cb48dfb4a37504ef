import { aNumber, idString, isoUtc } from "../common.js";

/** A message number: each side counts its own messages up from 0, so ids are monotonic per direction. */
export const messageId = aNumber()
  // zod's int() is a safe-integer check: ids above 2^53 - 1 cannot round-trip through JSON numbers.
  .int("must be a whole number no larger than 2^53 - 1")
  .min(0, "must be a non-negative integer");

/** The fields every warden ↔ inmate message carries (seed 003 §12), plus the id of the message it answers. */
export const protocolHeader = {
  user_id: idString,
  session_id: idString,
  msg_id: messageId,
  timestamp: isoUtc,
  reply_to: messageId.optional(),
};

/** A turn groups the deltas, tool results and final reply that answer one UserMessage or JobTrigger. */
export const turnId = idString;
