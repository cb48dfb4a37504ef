import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionFileSegment, sessionReportPaths } from "./report-names.js";

describe("sessionFileSegment", () => {
  it("keeps a plain id as it is", () => {
    expect(sessionFileSegment("demo-openclaw-session-001")).toBe("demo-openclaw-session-001");
    expect(sessionFileSegment("01JQ.a_b")).toBe("01JQ.a_b");
  });

  it("hex-encodes an id holding ../ or / so it stays one file name", () => {
    expect(sessionFileSegment("../x")).toBe(`_${Buffer.from("../x").toString("hex")}`);
    expect(sessionFileSegment("a/b")).toBe("_612f62");
    expect(sessionFileSegment("é b")).toBe(`_${Buffer.from("é b").toString("hex")}`);
  });

  it("encodes an id starting with _ too, so no plain id can equal an encoded one", () => {
    const encoded = sessionFileSegment("a/b");
    expect(sessionFileSegment(encoded)).not.toBe(encoded);
  });

  it("shortens a very long id to a digest that still fits a file name", () => {
    const segment = sessionFileSegment("x".repeat(500));
    expect(segment).toMatch(/^_sha256-[0-9a-f]{64}$/);
    expect(sessionFileSegment("y".repeat(500))).not.toBe(segment);
  });

  it("puts every report of a hostile id directly in reports/", () => {
    const paths = sessionReportPaths("/state", "../../etc/passwd");
    for (const path of Object.values(paths))
      expect(path.startsWith(join("/state", "reports", ""))).toBe(true);
    for (const path of Object.values(paths))
      expect(path.slice("/state/reports/".length)).toMatch(/^[A-Za-z0-9._-]+$/);
  });
});
