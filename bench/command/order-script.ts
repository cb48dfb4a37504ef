// The scripted model's answers to an order's agent, at once and without a model's time: first a tool call that
// writes the note its objective names, then a completion block that passes the three gates (seed 001).
import { type Reply, reply } from "../../test/support/model-server.js";
import { orderTurn } from "../../test/support/worker-script.js";

type Message = { role: string; content?: unknown };

export function answerOrderAgent(body: Record<string, unknown>): Reply {
  const messages = (body.messages ?? []) as Message[];
  const text = JSON.stringify(messages);
  const orderId = /jarvis-order_([0-9A-Za-z]+)/.exec(text)?.[1];
  if (!orderId) return reply.status(400, "the benchmark's model answers orders' agents only");
  const file = /Write (notes\/[\w.-]+\.md)/.exec(text)?.[1] ?? `notes/${orderId}.md`;
  return orderTurn({ kind: "order", orderId, file, toolAnswered: messages.some((m) => m.role === "tool") });
}

/** A planner's reply of `count` independent orders, each writing one note and gated on it. */
export function notesPlan(prefix: string, count: number) {
  return {
    orders: Array.from({ length: count }, (_, i) => ({
      key: `${prefix}-${i}`,
      type: "implement",
      objective: `Write notes/${prefix}-${i}.md`,
      acceptance_commands: [`test -s notes/${prefix}-${i}.md`],
    })),
  };
}
