import { InvalidInputError } from "../core/index.js";

/** With the u flag a surrogate range matches only halves that have no partner: text with no UTF-8 form. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * JSON.stringify writes a lone surrogate as the escape \udXXX (and nothing else as \ud8…\udf…): a backslash
 * that is not itself escaped, that is preceded by an even run of backslashes, followed by ud8 to udf.
 */
const ESCAPED_LONE_SURROGATE = /(?<!\\)(?:\\\\)*\\ud[89a-f]/;

/**
 * Canonical JSON (RFC 8785) of plain JSON data, byte for byte what core's canonicalJson gives: keys sorted by
 * UTF-16 code units, no whitespace, numbers and strings as JSON.stringify writes them; NaN, Infinity and lone
 * surrogates refused. Every append encodes the snapshots it changes, so this is written for them: the
 * projections build every object with its keys already in canonical order, and then one native
 * JSON.stringify writes the canonical text. Anything else takes the general path below.
 */
export function encodeSnapshot(value: object): string {
  if (!isInCanonicalOrder(value)) return encodeValue(value);
  const text = JSON.stringify(value);
  if (ESCAPED_LONE_SURROGATE.test(text)) throw refuse("a string holds a lone surrogate");
  return text;
}

/**
 * Every object's keys, in the order JSON.stringify writes them, ascend by UTF-16 code units, and every number
 * is finite: then JSON.stringify's text is the canonical one.
 */
function isInCanonicalOrder(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || value === null) return typeof value !== "bigint";
  if (Array.isArray(value)) return value.every(isInCanonicalOrder);
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return false;
    if (!isInCanonicalOrder(Reflect.get(value, key))) return false;
    previous = key;
  }
  return true;
}

function encodeValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      if (LONE_SURROGATE.test(value)) throw refuse("a string holds a lone surrogate");
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw refuse(`${value} is not a JSON number`);
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      return Array.isArray(value) ? encodeArray(value) : encodeObject(value);
    default:
      throw refuse(`a ${typeof value} has no JSON form`);
  }
}

function encodeArray(items: readonly unknown[]): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    // As JSON.stringify and canonicalize do: a hole or undefined in an array is null.
    out += (i === 0 ? "" : ",") + (item === undefined ? "null" : encodeValue(item));
  }
  return `${out}]`;
}

function encodeObject(object: object): string {
  const keys = Object.keys(object);
  if (!isSorted(keys)) keys.sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const item: unknown = Reflect.get(object, key);
    if (item === undefined) continue;
    out += `${first ? "" : ","}${encodeValue(key)}:${encodeValue(item)}`;
    first = false;
  }
  return `${out}}`;
}

function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if ((keys[i - 1] ?? "") > (keys[i] ?? "")) return false;
  return true;
}

function refuse(reason: string): InvalidInputError {
  return new InvalidInputError("$", `cannot canonicalise: ${reason}`);
}
