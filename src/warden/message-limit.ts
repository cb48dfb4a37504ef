import { IronclawError } from "../core/index.js";

/** Where the limit is set, as an operator finds it. */
export const MESSAGE_LIMIT_SETTING = "[limits] max_message_bytes in ironclawd.toml";

/**
 * A chat message larger than the host takes. It is refused at the door, before it reaches the cell: each
 * surface says it its own way (413 with the envelope, OpenAI's error shape, a WebSocket error event, a reply
 * in the chat), always naming the field and the limit.
 */
export class MessageTooLargeError extends IronclawError {
  override readonly name = "MessageTooLargeError";
  constructor(
    readonly field: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(
      "payload_too_large",
      `${field}: a message may be at most ${formatBytes(limit)} (${MESSAGE_LIMIT_SETTING}); this one is ${formatBytes(bytes)}. Send a shorter message, or split it into parts`,
    );
  }
}

/** Throws MessageTooLargeError when `text` is more than `limit` UTF-8 bytes. */
export function checkMessageSize(text: string, field: string, limit: number): void {
  // A UTF-8 byte is at least a third of a UTF-16 code unit's worth: short strings need no count at all.
  if (text.length * 3 <= limit) return;
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > limit) throw new MessageTooLargeError(field, bytes, limit);
}

/** The message of a request body over [server] body_limit, which fastify refuses before any field is read. */
export function bodyTooLargeMessage(bodyLimit: number, messageLimit: number): string {
  return (
    `request body: at most ${formatBytes(bodyLimit)} is accepted ([server] body_limit in ironclawd.toml), ` +
    `and a chat message at most ${formatBytes(messageLimit)} (${MESSAGE_LIMIT_SETTING})`
  );
}

/** Bytes as people read them: 262144 → "256 KiB (262144 bytes)". */
export function formatBytes(bytes: number): string {
  const unit = bytes >= 1024 * 1024 ? { size: 1024 * 1024, name: "MiB" } : { size: 1024, name: "KiB" };
  if (bytes < 1024) return `${bytes} bytes`;
  const value = bytes / unit.size;
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${shown} ${unit.name} (${bytes} bytes)`;
}
