import { InvalidInputError } from "../../core/index.js";
import { type PlanReply, parsePlanReply } from "./plan-reply.js";

const FENCE = /```[^\n`]*\n([\s\S]*?)```/g;

/**
 * The plan in a planning model's reply, checked (see parsePlanReply). Models answer JSON bare, inside a ```json
 * fence, or with a sentence around it; the first fenced block that is JSON wins, otherwise the whole reply, otherwise
 * the outermost `{…}` or `[…]` in it. Throws an InvalidInputError saying why no JSON was found, or the plan's
 * ValidationError when the JSON is not a plan.
 */
export function planFromModelText(text: string): PlanReply {
  if (typeof text !== "string" || !/\S/.test(text))
    throw new InvalidInputError("plan reply", "must be the model's text holding a JSON plan; it is empty");
  return parsePlanReply(extractJson(text));
}

function extractJson(text: string): unknown {
  const fenced = [...text.matchAll(FENCE)].map((m) => m[1] ?? "");
  if (fenced.length > 0) {
    let firstError = "";
    for (const block of fenced) {
      const parsed = tryParse(block);
      if (parsed.ok) return parsed.value;
      firstError ||= parsed.error;
    }
    throw new InvalidInputError(
      "plan reply",
      `must hold a JSON plan; its fenced block is not JSON (${firstError})`,
    );
  }
  const whole = tryParse(text);
  if (whole.ok) return whole.value;
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
  if (start < 0 || end <= start)
    throw new InvalidInputError(
      "plan reply",
      "must hold a JSON plan, bare or in a ``` fence; it has no JSON object",
    );
  const inner = tryParse(text.slice(start, end + 1));
  if (inner.ok) return inner.value;
  throw new InvalidInputError(
    "plan reply",
    `must hold a JSON plan; the JSON in it does not parse (${inner.error})`,
  );
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
