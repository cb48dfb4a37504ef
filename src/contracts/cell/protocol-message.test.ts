import { describe, expect, it } from "vitest";
import { PROTOCOL_MESSAGE_TYPES, type ProtocolMessage, protocolMessageSchema } from "./protocol-message.js";

const header = { user_id: "u-1", session_id: "s-1", msg_id: 0, timestamp: "2026-03-14T09:12:03Z" };

describe("protocol messages", () => {
  it("lists exactly the message types the union accepts", () => {
    const types = protocolMessageSchema.options.map((option) => option.shape.type.value);
    expect([...types].sort()).toEqual([...PROTOCOL_MESSAGE_TYPES].sort());
  });

  it("narrows a parsed message by its type", () => {
    const message: ProtocolMessage = protocolMessageSchema.parse({
      type: "UserMessage",
      ...header,
      text: "hi",
    });
    expect(message.type === "UserMessage" ? message.text : undefined).toBe("hi");
  });

  it("accepts the largest msg_id a JSON number carries exactly and nothing above it", () => {
    const at = (msg_id: number) =>
      protocolMessageSchema.safeParse({ type: "Heartbeat", ...header, msg_id }).success;
    expect(at(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(at(Number.MAX_SAFE_INTEGER + 1)).toBe(false);
  });
});
