import type { Writable } from "node:stream";

const REASONS: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  405: "Method Not Allowed",
  408: "Request Timeout",
  417: "Expectation Failed",
  421: "Misdirected Request",
  429: "Too Many Requests",
  502: "Bad Gateway",
  505: "HTTP Version Not Supported",
};

/** A status with a one-line plain-text reason, then the connection closes: after a refusal nothing more is read. */
export function replyAndClose(stream: Writable, status: number, reason: string): void {
  const body = `${reason.replace(/[\r\n]+/g, " ")}\n`;
  const head = [
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}`,
    "Content-Type: text/plain; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  if (stream.writable) stream.end(head + body);
}
