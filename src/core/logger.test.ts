import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join("")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

describe("logger", () => {
  it("writes JSON lines with the component name and fields", () => {
    const out = capture();
    createLogger("ledger", { level: "info" }, out.stream).info({ position: 7 }, "appended");
    expect(out.lines()).toEqual([
      expect.objectContaining({ name: "ledger", position: 7, msg: "appended", level: 30 }),
    ]);
  });

  it("drops records below the configured level", () => {
    const out = capture();
    const log = createLogger("memory", { level: "warn" }, out.stream);
    log.info("quiet");
    log.warn("loud");
    expect(out.lines().map((l) => l.msg)).toEqual(["loud"]);
  });
});
