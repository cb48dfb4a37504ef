import { InvalidInputError } from "../core/index.js";
import { HttpError } from "../http/index.js";

/**
 * Objects and arrays nest at most this deep in a request body. Seed 000's events nest a handful of levels; the
 * limit is there because validating, hashing and storing a value recurse over it, and a body nested thousands
 * deep would exhaust the stack there (a 500) instead of being refused here (a 400 naming the rule).
 */
export const MAX_JSON_DEPTH = 64;

const DEPTH_RULE = `nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels, the ledger's limit`;
const PROTO_RULE =
  "a key named __proto__ is not accepted: JavaScript readers of the event would drop it or treat it as a prototype, so it could not be stored exactly as sent";

/**
 * Parses a request body as JSON and refuses what the ledger could not store exactly as acknowledged. Every
 * refusal is a 400 naming the JSON path. The walk keeps its own stack, so depth costs no call stack here.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") throw new HttpError("bad_request", "request body is empty: send a JSON object");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new HttpError("bad_request", `request body is not valid JSON: ${(cause as Error).message}`, {
      cause,
    });
  }
  checkShape(value);
  return value;
}

interface Pending {
  value: unknown;
  path: string;
  depth: number;
}

function checkShape(root: unknown): void {
  const pending: Pending[] = [{ value: root, path: "$", depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) throw new InvalidInputError(path, DEPTH_RULE);
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        pending.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 });
      });
      continue;
    }
    // JSON.parse makes __proto__ an own key; Object.keys sees it, where `in` or a copy would not.
    for (const key of Object.keys(value)) {
      const at = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
      if (key === "__proto__") throw new InvalidInputError(at, PROTO_RULE);
      pending.push({ value: (value as Record<string, unknown>)[key], path: at, depth: depth + 1 });
    }
  }
}
