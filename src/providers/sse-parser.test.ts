import { describe, expect, it } from "vitest";
import { SseParser } from "./sse-parser.js";

describe("SseParser", () => {
  it("returns each event's data once its blank line arrives, across arbitrary splits", () => {
    const parser = new SseParser();
    const text = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n';
    const events: string[] = [];
    for (const ch of text) events.push(...parser.push(ch));
    expect(events).toEqual(['{"a":1}', '{"b":2}', "[DONE]"]);
  });

  it("joins multi-line data with newlines and ignores other fields", () => {
    const parser = new SseParser();
    expect(parser.push("event: message\nid: 7\ndata: one\ndata:two\n\n")).toEqual(["one\ntwo"]);
  });

  it("returns an event left open when the input ends", () => {
    const parser = new SseParser();
    expect(parser.push("data: [DONE]")).toEqual([]);
    expect(parser.end()).toEqual(["[DONE]"]);
  });
});
