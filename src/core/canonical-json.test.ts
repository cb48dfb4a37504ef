import { describe, expect, it } from "vitest";
import { canonicalBytes, canonicalJson, hashCanonical, sha256Hex } from "./canonical-json.js";
import { InvalidInputError } from "./errors.js";

describe("RFC 8785 canonical JSON", () => {
  it("serialises the RFC's §3.2.2 example byte for byte", () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("sorts keys by UTF-16 code units as in the RFC's §3.2.3 example", () => {
    const input = {
      "€": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\u{1F600}": "Emoji: Grinning Face",
      "\u0080": "Control",
      ö: "Latin Small Letter O With Diaeresis",
    };
    // Compare the text itself: Object.keys would move the integer-like key "1" to the front.
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
        '"€":"Euro Sign","\u{1F600}":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it.each([
    [0, "0"],
    [-0, "0"],
    [1e21, "1e+21"],
    [1e-7, "1e-7"],
    [0.000001, "0.000001"],
    [5e-324, "5e-324"],
    [9007199254740992, "9007199254740992"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [295147905179352830000, "295147905179352830000"],
    [-1.5, "-1.5"],
  ])("formats the number %s as %s", (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it("escapes control characters with lowercase hex and leaves other unicode as UTF-8", () => {
    expect(canonicalJson("\u0001\u001f\t\b\f é 😀")).toBe('"\\u0001\\u001f\\t\\b\\f é 😀"');
    expect(canonicalBytes("é")).toEqual(Buffer.from([0x22, 0xc3, 0xa9, 0x22]));
  });

  it("drops undefined members but keeps null, and nests sorting", () => {
    expect(canonicalJson({ b: undefined, a: null, c: { z: 1, y: [{ d: 2, c: 1 }] } })).toBe(
      '{"a":null,"c":{"y":[{"c":1,"d":2}],"z":1}}',
    );
  });

  it.each([
    [Number.NaN, "NaN"],
    [Number.POSITIVE_INFINITY, "Infinity"],
    ["\ud800", "surrogate"],
    [undefined, "undefined"],
  ])("refuses %s, which has no canonical form", (value, word) => {
    expect(() => canonicalJson(value)).toThrow(InvalidInputError);
    expect(() => canonicalJson(value)).toThrow(new RegExp(word, "i"));
  });
});

describe("hashing", () => {
  it("gives one hash for the same value written in different key orders", () => {
    const a = { run_id: "r1", payload: { attempt: 1, unit: "u" }, ts: "2026-01-14T16:21:00Z" };
    const b = JSON.parse('{"ts":"2026-01-14T16:21:00Z","payload":{"unit":"u","attempt":1},"run_id":"r1"}');
    expect(hashCanonical(a)).toBe(hashCanonical(b));
    expect(hashCanonical(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("hashes exactly the canonical UTF-8 bytes", () => {
    expect(hashCanonical({ b: 1, a: "é" })).toBe(
      `sha256:${sha256Hex(Buffer.from('{"a":"é","b":1}', "utf8"))}`,
    );
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("gives different hashes for different values", () => {
    expect(hashCanonical({ a: 1 })).not.toBe(hashCanonical({ a: 2 }));
  });
});
