import { describe, expect, it } from "vitest";
import { containsMatcher, queryMatcher, removeMatching } from "./forget-match.js";

const doc = [
  "# Notes",
  "",
  "## Boiler",
  "",
  "The boiler code is 4412.",
  "",
  "- gas meter in the cellar",
  "- boiler code 4412 again",
  "",
  "```",
  "# a comment, not a heading",
  "```",
  "",
  "## Tea",
  "",
  "Genmaicha.",
  "",
].join("\n");

describe("what forgetting removes from a markdown file", () => {
  it("removes every paragraph and list item holding all the query's words, keeping the rest and one blank line", () => {
    const removal = removeMatching(doc, queryMatcher("Boiler CODE 4412"));
    expect(removal?.text).toBe(
      [
        "# Notes",
        "",
        "## Boiler",
        "",
        "- gas meter in the cellar",
        "",
        "```",
        "# a comment, not a heading",
        "```",
        "",
        "## Tea",
        "",
        "Genmaicha.",
        "",
      ].join("\n"),
    );
    expect(removal?.regions.map((r) => [r.startLine, r.endLine, r.headings])).toEqual([
      [5, 5, ["Notes", "Boiler"]],
      [8, 8, ["Notes", "Boiler"]],
    ]);
    expect(removal?.regions[0]?.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(removal?.removed).toEqual(["The boiler code is 4412.", "- boiler code 4412 again"]);
  });

  it("takes a heading with the section it names, and a heading left with nothing under it", () => {
    expect(removeMatching(doc, queryMatcher("boiler"))?.text).toBe("# Notes\n\n## Tea\n\nGenmaicha.\n");
    expect(
      removeMatching("# A\n\n## B\n\nonly this\n\n## C\n\nkeep\n", queryMatcher("only this"))?.text,
    ).toBe("# A\n\n## C\n\nkeep\n");
  });

  it("matches whole words only, and nothing for a query without words", () => {
    expect(removeMatching(doc, queryMatcher("boil"))).toBeUndefined();
    expect(removeMatching(doc, queryMatcher("!!!"))).toBeUndefined();
  });

  it("treats a fenced block as one unit, so a heading-like line inside it is text", () => {
    expect(
      removeMatching(doc, queryMatcher("comment heading"))?.regions.map((r) => [r.startLine, r.endLine]),
    ).toEqual([[10, 12]]);
  });

  it("finds quoted copies of a passage whatever their spacing and case", () => {
    const matches = containsMatcher(["The boiler code\nis 4412."]);
    expect(matches("he said: THE   boiler code is 4412. Then left")).toBe(true);
    expect(matches("the boiler code is 4413")).toBe(false);
  });
});
