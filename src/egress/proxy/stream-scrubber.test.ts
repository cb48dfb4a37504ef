import { describe, expect, it } from "vitest";
import { StreamScrubber } from "./stream-scrubber.js";

const scrubber = () =>
  new StreamScrubber([
    { find: Buffer.from("SECRET"), replaceWith: Buffer.from("<ph>") },
    { find: Buffer.from("SEC%2F"), replaceWith: Buffer.from("<ph>") },
  ]);

function feed(s: StreamScrubber, pieces: string[]): string {
  return Buffer.concat([...pieces.map((p) => s.push(Buffer.from(p))), s.end()]).toString();
}

describe("StreamScrubber", () => {
  it("replaces a secret split across every possible piece boundary", () => {
    const text = "a SECRET b SEC%2F c SECRETSECRET";
    for (let cut = 0; cut <= text.length; cut++) {
      const s = scrubber();
      expect(feed(s, [text.slice(0, cut), text.slice(cut)])).toBe("a <ph> b <ph> c <ph><ph>");
      expect(s.replaced).toBe(4);
    }
  });

  it("byte by byte, and leaves text without a secret unchanged", () => {
    const s = scrubber();
    expect(feed(s, [..."xxSECRExSECRETyy"])).toBe("xxSECREx<ph>yy");
    expect(feed(scrubber(), ["no secrets here, SECRE", "T-less"])).toBe("no secrets here, <ph>-less");
    expect(feed(scrubber(), ["plain text"])).toBe("plain text");
  });
});
