import { type ByteReader, ProtocolRefusal } from "./byte-reader.js";
import { fieldValues, type HeaderField } from "./http-head.js";

/** How a message's body is delimited on the wire. */
export type BodyFraming =
  | { kind: "none" }
  | { kind: "length"; length: number }
  | { kind: "chunked" }
  | { kind: "until-close" };

const MAX_LINE = 4096;

/**
 * A request's framing, refusing every ambiguity a front and a back server could resolve differently (request
 * smuggling): Content-Length together with Transfer-Encoding, several or malformed lengths, any coding but a
 * single `chunked`.
 */
export function requestFraming(headers: readonly HeaderField[]): BodyFraming {
  const lengths = fieldValues(headers, "content-length");
  const codings = fieldValues(headers, "transfer-encoding");
  if (lengths.length > 0 && codings.length > 0)
    throw new ProtocolRefusal(
      "both Content-Length and Transfer-Encoding are set (a request smuggling shape)",
    );
  if (codings.length > 0) return chunkedOnly(codings, 400);
  if (lengths.length > 0) return { kind: "length", length: contentLength(lengths, 400) };
  return { kind: "none" };
}

/** A response's framing (RFC 9112 §6.3): HEAD and 1xx/204/304 have no body; without either field, until close. */
export function responseFraming(
  status: number,
  requestMethod: string,
  headers: readonly HeaderField[],
): BodyFraming {
  if (requestMethod === "HEAD" || status < 200 || status === 204 || status === 304) return { kind: "none" };
  const lengths = fieldValues(headers, "content-length");
  const codings = fieldValues(headers, "transfer-encoding");
  if (codings.length > 0) {
    if (lengths.length > 0)
      throw new ProtocolRefusal("the upstream set both Content-Length and Transfer-Encoding", 502);
    return chunkedOnly(codings, 502);
  }
  if (lengths.length > 0) return { kind: "length", length: contentLength(lengths, 502) };
  return { kind: "until-close" };
}

function chunkedOnly(codings: string[], status: number): BodyFraming {
  if (codings.length !== 1 || codings[0]?.toLowerCase() !== "chunked")
    throw new ProtocolRefusal(
      `Transfer-Encoding ${JSON.stringify(codings.join(", "))} is not a lone chunked`,
      status,
    );
  return { kind: "chunked" };
}

function contentLength(values: string[], status: number): number {
  const [value] = values;
  if (values.length !== 1 || value === undefined || !/^[0-9]{1,15}$/.test(value))
    throw new ProtocolRefusal(
      `Content-Length ${JSON.stringify(values.join(", "))} is not one decimal length`,
      status,
    );
  return Number(value);
}

/** The body's payload bytes, de-chunked; chunk extensions and trailers are read and dropped. */
export async function* readBody(reader: ByteReader, framing: BodyFraming): AsyncGenerator<Buffer> {
  if (framing.kind === "length") yield* reader.readExactly(framing.length, "a body");
  else if (framing.kind === "until-close")
    for (let piece = await reader.readSome(65536); piece; piece = await reader.readSome(65536)) yield piece;
  else if (framing.kind === "chunked") yield* readChunks(reader);
}

async function* readChunks(reader: ByteReader): AsyncGenerator<Buffer> {
  for (;;) {
    const line = await requiredLine(reader, "a chunk size line");
    const match = /^([0-9A-Fa-f]{1,12})(?:[ \t]*;[^\r\n]*)?$/.exec(line);
    if (!match?.[1])
      throw new ProtocolRefusal(`bad chunking: the chunk size line ${JSON.stringify(line.slice(0, 40))}`);
    const size = Number.parseInt(match[1], 16);
    if (size === 0) break;
    yield* reader.readExactly(size, "a chunk");
    if ((await requiredLine(reader, "a chunk's end")) !== "")
      throw new ProtocolRefusal("bad chunking: a chunk's data is longer than its size");
  }
  // Trailer fields end with an empty line; they are not forwarded (nothing here needs them).
  for (let lines = 0; (await requiredLine(reader, "the trailer")) !== ""; lines++)
    if (lines > 64) throw new ProtocolRefusal("more than 64 trailer fields");
}

async function requiredLine(reader: ByteReader, what: string): Promise<string> {
  const line = await reader.readUntil("\r\n", MAX_LINE, what);
  if (line === undefined) throw new ProtocolRefusal(`the connection closed before ${what}`);
  const text = line.subarray(0, line.length - 2).toString("latin1");
  if (/[\r\n]/.test(text)) throw new ProtocolRefusal(`bad chunking: a bare CR or LF in ${what}`);
  return text;
}

/** One chunk as sent on the wire; an empty piece would end the body, so callers skip those. */
export function frameChunk(piece: Buffer): Buffer[] {
  return [Buffer.from(`${piece.length.toString(16)}\r\n`, "latin1"), piece, Buffer.from("\r\n")];
}

export const LAST_CHUNK = Buffer.from("0\r\n\r\n");
