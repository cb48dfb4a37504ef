import { describe, expect, it } from "vitest";
import { checkMessageSize, formatBytes, MessageTooLargeError } from "./message-limit.js";

describe("the message size limit", () => {
  it("counts UTF-8 bytes, not characters, and lets a message of exactly the limit through", () => {
    expect(() => checkMessageSize("a".repeat(1024), "text", 1024)).not.toThrow();
    // 400 characters of 3 bytes each: 1200 bytes.
    const error = (() => {
      try {
        checkMessageSize("€".repeat(400), "text", 1024);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(MessageTooLargeError);
    expect(error).toMatchObject({ field: "text", bytes: 1200, limit: 1024, code: "payload_too_large" });
    expect((error as Error).message).toBe(
      "text: a message may be at most 1 KiB (1024 bytes) ([limits] max_message_bytes in ironclawd.toml); this one is 1.2 KiB (1200 bytes). Send a shorter message, or split it into parts",
    );
  });

  it("writes sizes as people read them", () => {
    expect(formatBytes(512)).toBe("512 bytes");
    expect(formatBytes(262_144)).toBe("256 KiB (262144 bytes)");
    expect(formatBytes(10 * 1024 * 1024 + 1)).toBe("10.0 MiB (10485761 bytes)");
  });
});
