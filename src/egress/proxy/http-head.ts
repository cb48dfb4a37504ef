import { ProtocolRefusal } from "./byte-reader.js";

/** One header line as the peer sent it: the name keeps its spelling, lookups ignore case. */
export interface HeaderField {
  name: string;
  value: string;
}

export interface RequestHead {
  method: string;
  target: string;
  version: string;
  headers: HeaderField[];
}

export interface ResponseHead {
  status: number;
  reason: string;
  headers: HeaderField[];
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible ASCII, obs-text, space and tab; no CR, LF or NUL hidden inside a value.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * A request head (request line + fields, without the final blank line's CRLF pair) parsed strictly: exactly
 * one space between the three parts, HTTP/1.x only, no obsolete line folding, no bare CR or LF. What two
 * servers could read differently is refused rather than guessed at, since the proxy and the upstream must agree.
 */
export function parseRequestHead(head: Buffer): RequestHead {
  const [line, headers] = splitHead(head);
  const parts = line.split(" ");
  const [method, target, version] = parts;
  if (parts.length !== 3 || !method || !target || !version || !TOKEN.test(method))
    throw new ProtocolRefusal(`a malformed request line: ${printable(line)}`);
  if (!/^HTTP\/1\.[01]$/.test(version))
    throw new ProtocolRefusal(`${printable(version)} is not HTTP/1.x`, 505);
  return { method, target, version, headers };
}

export function parseResponseHead(head: Buffer): ResponseHead {
  const [line, headers] = splitHead(head);
  const match = /^HTTP\/1\.[01] ([1-9][0-9]{2})(?: (.*))?$/.exec(line);
  if (!match) throw new ProtocolRefusal(`the upstream sent a malformed status line: ${printable(line)}`, 502);
  return { status: Number(match[1]), reason: match[2] ?? "", headers };
}

function splitHead(head: Buffer): [string, HeaderField[]] {
  const text = head.toString("latin1").replace(/\r\n\r\n$/, "");
  const lines = text.split("\r\n");
  const first = lines.shift() ?? "";
  if (/[\r\n]/.test(first)) throw new ProtocolRefusal("a bare CR or LF in the start line");
  const fields: HeaderField[] = [];
  for (const line of lines) {
    if (/^[ \t]/.test(line))
      throw new ProtocolRefusal("obsolete line folding (a field line starting with whitespace)");
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    if (colon <= 0 || !TOKEN.test(name))
      throw new ProtocolRefusal(`a malformed field line: ${printable(line)}`);
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (!FIELD_VALUE.test(value)) throw new ProtocolRefusal(`field ${name} holds a control character`);
    fields.push({ name, value });
  }
  return [first, fields];
}

/** Every value of the fields named `name` (any case). */
export function fieldValues(headers: readonly HeaderField[], name: string): string[] {
  const key = name.toLowerCase();
  return headers.filter((field) => field.name.toLowerCase() === key).map((field) => field.value);
}

export function serialiseHead(startLine: string, headers: readonly HeaderField[]): Buffer {
  const lines = [startLine, ...headers.map((field) => `${field.name}: ${field.value}`), "", ""];
  return Buffer.from(lines.join("\r\n"), "latin1");
}

/** A value safe to put in a refusal or an audit line: control characters escaped, cut short. */
export function printable(text: string): string {
  const clipped = text.length > 120 ? `${text.slice(0, 120)}…` : text;
  return JSON.stringify(clipped);
}
