import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "./chunker.js";
import { transcriptDate, transcriptPath } from "./transcript-file.js";
import { quoteForBrain } from "./transcript-text.js";

describe("words placed under a heading of a brain file", () => {
  it("cannot add headings, setext underlines or HTML blocks, and an open fence is closed", () => {
    const quoted = quoteForBrain("# Title\nline\n---\n<!-- open\n```js\nlet x = 1;");
    expect(quoted).toBe("**Title**\nline\n\\---\n\\<!-- open\n```js\nlet x = 1;\n```");
    const file = `## 10:00:00 — user\n\n${quoted}\n\n## 10:00:01 — assistant\n\nok\n`;
    expect(chunkMarkdown("t.md", file).map((c) => c.headings)).toEqual([
      ["10:00:00 — user"],
      ["10:00:01 — assistant"],
    ]);
  });

  it("keeps what is inside a closed fence as it was", () => {
    expect(quoteForBrain("```\n# not a heading\n```\nafter")).toBe("```\n# not a heading\n```\nafter");
  });
});

describe("a transcript's path", () => {
  it("is dated by the first turn in UTC and names the session; an id that is no file name gets a hashed one", () => {
    expect(transcriptPath("01JABC", new Date("2026-03-03T23:30:00-02:00"))).toBe(
      "sessions/2026-03-04/01JABC.md",
    );
    const odd = transcriptPath("tg:42/../x", new Date("2026-03-03T10:00:00Z"));
    expect(odd).toMatch(/^sessions\/2026-03-03\/tg_42____x-[0-9a-f]{12}\.md$/);
    expect(transcriptDate(odd)).toBe("2026-03-03");
    expect(transcriptDate("logs/2026-03-03.md")).toBeUndefined();
  });
});
