import type { RecordedEvent } from "../../ledger/index.js";
import type { ChannelButton } from "../channels/channel.js";

/** Telegram refuses callback_data over 64 bytes; a longer id is acknowledged by typing `/ack <id>`. */
const MAX_BUTTON_DATA = 64;

/**
 * What a linked chat is told of an escalation: how bad, what it is about, why, and how to acknowledge it. Plain
 * text, as every channel message is: a reason quoting a path with `*` or `<` must not get the message refused.
 */
export function escalationNotice(raised: RecordedEvent): { text: string; buttons: ChannelButton[] } {
  const { payload } = raised;
  const severity = typeof payload.severity === "string" ? payload.severity : "UNKNOWN";
  const what = typeof payload.check === "string" ? payload.check.replaceAll("_", " ") : "needs a person";
  const where = [
    raised.theater_id && `theater ${raised.theater_id}`,
    raised.run_id && `run ${raised.run_id}`,
    raised.order_id && `order ${raised.order_id}`,
  ].filter(Boolean);
  const text = [
    `Escalation (${severity}): ${what}${where.length > 0 ? ` in ${where.join(", ")}` : " on this host"}`,
    `Why: ${typeof payload.reason === "string" ? payload.reason : "no reason given"}`,
    `Acknowledge: /ack ${raised.event_id}`,
  ].join("\n");
  const data = `ack:${raised.event_id}`;
  const fits = Buffer.byteLength(data) <= MAX_BUTTON_DATA && !/\s/.test(raised.event_id);
  return { text, buttons: fits ? [{ text: "Acknowledge", data }] : [] };
}
