import type { Writable } from "node:stream";
import { type ByteReader, ProtocolRefusal } from "./byte-reader.js";
import {
  fieldValues,
  type HeaderField,
  parseResponseHead,
  type ResponseHead,
  serialiseHead,
} from "./http-head.js";
import { type BodyFraming, frameChunk, LAST_CHUNK, readBody, responseFraming } from "./message-body.js";
import type { ProxyBinding } from "./proxy-context.js";
import type { AdmittedRequest } from "./request-policy.js";
import { placeholderScanner, responseScrubber } from "./secret-scrub.js";
import { writeAll } from "./stream-write.js";

export interface ExchangeOutcome {
  status: number;
  bytesUp: number;
  bytesDown: number;
  /** The upstream connection cannot carry another request (it asked to close, or its body ran until close). */
  upstreamDone: boolean;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "upgrade",
  "transfer-encoding",
  "content-length",
]);

/** Sends an admitted request's head and body upstream; a placeholder in the body refuses it before it is written. */
export async function forwardRequest(
  request: AdmittedRequest,
  client: ByteReader,
  upstream: Writable,
  bindings: readonly ProxyBinding[],
): Promise<number> {
  await writeAll(upstream, [serialiseHead(`${request.method} ${request.target} HTTP/1.1`, request.headers)]);
  const scanner = placeholderScanner(bindings);
  const chunked = request.framing.kind === "chunked";
  let bytes = 0;
  const send = async (piece: Buffer) => {
    if (scanner.replaced > 0)
      throw new ProtocolRefusal("a placeholder in the request body; it is replaced only in its header", 403);
    if (piece.length === 0) return;
    bytes += piece.length;
    await writeAll(upstream, chunked ? frameChunk(piece) : [piece]);
  };
  for await (const piece of readBody(client, request.framing)) await send(scanner.push(piece));
  await send(scanner.end());
  if (chunked) await writeAll(upstream, [LAST_CHUNK]);
  return bytes;
}

/**
 * Reads the upstream's answer and passes it to the client: 1xx interim answers skipped, redirects passed back as
 * they are (never followed), every secret scrubbed from the status line, the fields and the body, and the body
 * re-framed as chunked because scrubbing may change its length. A compressed body is refused: the request asked
 * for identity, and the scrubber cannot see inside gzip.
 */
export async function relayResponse(
  request: AdmittedRequest,
  upstream: ByteReader,
  client: Writable,
  hostBindings: readonly ProxyBinding[],
  allBindings: readonly ProxyBinding[],
  maxHeadBytes: number,
): Promise<ExchangeOutcome> {
  let head: ResponseHead;
  do {
    const raw = await upstream.readUntil("\r\n\r\n", maxHeadBytes, "the upstream's response head");
    if (raw === undefined) throw new ProtocolRefusal("the upstream closed without answering", 502);
    head = parseResponseHead(raw);
    if (head.status === 101) throw new ProtocolRefusal("the upstream switched protocols", 502);
  } while (head.status < 200);
  const framing = responseFraming(head.status, request.method, head.headers);
  const coding = fieldValues(head.headers, "content-encoding").join(",").toLowerCase().trim();
  if (framing.kind !== "none" && coding !== "" && coding !== "identity")
    throw new ProtocolRefusal(`the upstream sent a ${coding} body despite Accept-Encoding: identity`, 502);
  const scrubber = responseScrubber(allBindings);
  const scrub = (text: string) => scrubber.scrub(Buffer.from(text, "latin1")).toString("latin1");
  const injectedNames = new Set(hostBindings.map((binding) => binding.header.toLowerCase()));
  const headers: HeaderField[] = [];
  for (const field of head.headers) {
    const name = field.name.toLowerCase();
    if (HOP_BY_HOP.has(name) || injectedNames.has(name)) continue;
    headers.push({ name: field.name, value: scrub(field.value) });
  }
  if (framing.kind !== "none") headers.push({ name: "Transfer-Encoding", value: "chunked" });
  else if (request.method === "HEAD")
    headers.push(...head.headers.filter((f) => f.name.toLowerCase() === "content-length"));
  await writeAll(client, [serialiseHead(`HTTP/1.1 ${head.status} ${scrub(head.reason)}`, headers)]);
  const bytesDown = await relayBody(
    upstream,
    framing,
    client,
    (piece) => scrubber.push(piece),
    () => scrubber.end(),
  );
  const closing = fieldValues(head.headers, "connection").some((value) =>
    /(^|,)\s*close\s*(,|$)/i.test(value),
  );
  return {
    status: head.status,
    bytesUp: 0,
    bytesDown,
    upstreamDone: closing || framing.kind === "until-close",
  };
}

async function relayBody(
  upstream: ByteReader,
  framing: BodyFraming,
  client: Writable,
  scrub: (piece: Buffer) => Buffer,
  flush: () => Buffer,
): Promise<number> {
  if (framing.kind === "none") return 0;
  let bytes = 0;
  const send = async (piece: Buffer) => {
    if (piece.length === 0) return;
    bytes += piece.length;
    await writeAll(client, frameChunk(piece));
  };
  for await (const piece of readBody(upstream, framing)) await send(scrub(piece));
  await send(flush());
  await writeAll(client, [LAST_CHUNK]);
  return bytes;
}
