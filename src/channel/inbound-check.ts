import type { ProtocolErrorCode } from "../contracts/cell/index.js";
// The protocol schema by its file: a cell's boot needs it alone, not every config schema of contracts/cell's
// index (INNER_IMPORTS in test/structure/house-rules.ts).
import {
  PROTOCOL_MESSAGE_TYPES,
  type ProtocolMessage,
  protocolMessageSchema,
} from "../contracts/cell/protocol-message.js";

/**
 * How far one inbound msg_id may jump ahead of the last. The sender counts up by one per message, so a larger
 * jump is garbage (or a forgery) and is refused without moving the mark: it cannot make every later message of
 * the real sender look out of order.
 */
export const MAX_MSG_ID_STEP = 1 << 20;

export type InboundVerdict =
  | { kind: "accept"; message: ProtocolMessage }
  /**
   * Bad input to answer with an Error frame (replyTo: the msg_id it carried, when it had a usable one). `answers`
   * is the request it claimed to reply to: that request will get no valid reply now, so it ends with this one.
   */
  | { kind: "refuse"; code: ProtocolErrorCode; text: string; replyTo: number | undefined; answers?: number }
  /** Bad input never answered: a broken Error (two confused peers would echo each other forever). */
  | { kind: "drop" };

/** The checks every decoded inbound frame passes, in order: the message schema, then a monotonic msg_id. */
export class InboundCheck {
  private lastId = -1;

  check(raw: unknown): InboundVerdict {
    const parsed = protocolMessageSchema.safeParse(raw);
    const record = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
    if (!parsed.success) {
      if (record.type === "Error") return { kind: "drop" };
      const replyTo =
        Number.isSafeInteger(record.msg_id) && (record.msg_id as number) >= 0
          ? (record.msg_id as number)
          : undefined;
      const known = (PROTOCOL_MESSAGE_TYPES as readonly unknown[]).includes(record.type);
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.join(".") || "message"}: ${issue.message}` : "invalid";
      const answers =
        Number.isSafeInteger(record.reply_to) && (record.reply_to as number) >= 0
          ? { answers: record.reply_to as number }
          : {};
      return known
        ? { kind: "refuse", code: "invalid_message", text: where, replyTo, ...answers }
        : {
            kind: "refuse",
            code: "unknown_type",
            text: `unknown message type ${JSON.stringify(record.type)?.slice(0, 60)}`,
            replyTo,
          };
    }
    const message = parsed.data;
    const id = message.msg_id;
    if (id <= this.lastId) {
      // Resynchronise on the sender: after one forged or replayed high msg_id, the real sender's next message
      // is refused, but the one after it passes again, so the channel is never wedged for good.
      this.lastId = id;
      return { kind: "refuse", code: "invalid_message", text: `msg_id ${id} does not increase`, replyTo: id };
    }
    if (this.lastId >= 0 && id - this.lastId > MAX_MSG_ID_STEP) {
      const text = `msg_id ${id} jumps more than ${MAX_MSG_ID_STEP} past ${this.lastId}`;
      return { kind: "refuse", code: "invalid_message", text, replyTo: id };
    }
    this.lastId = id;
    return { kind: "accept", message };
  }
}
