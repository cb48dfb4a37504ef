import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "./chunker.js";

const doc = `# Garden

Notes about the garden.

## Tomatoes

Water deeply twice a week.

- stake early
- pinch suckers

## Herbs

Basil hates the cold.

### Basil

Pinch the flowers.

## Compost

Turn it monthly.
`;

describe("heading-aware chunker", () => {
  it("follows heading sections, keeping the trail and the line range", () => {
    const chunks = chunkMarkdown("garden.md", doc);
    expect(chunks.map((c) => [c.headings.join(" > "), c.startLine, c.endLine])).toEqual([
      ["Garden", 1, 3],
      ["Garden > Tomatoes", 5, 10],
      ["Garden > Herbs", 12, 14],
      ["Garden > Herbs > Basil", 16, 18],
      ["Garden > Compost", 20, 22],
    ]);
    expect(chunks[1]?.text).toBe(
      "## Tomatoes\n\nWater deeply twice a week.\n\n- stake early\n- pinch suckers",
    );
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
  });

  it("uses a real parser: fenced code, setext headings, nested lists and frontmatter", () => {
    const md =
      "---\ntitle: Notes\n---\nSetext title\n============\n\n```sh\n# not a heading\nls\n```\n\n- item\n  # also not a section\n";
    const chunks = chunkMarkdown("notes.md", md);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.headings).toEqual(["Setext title"]);
    expect(chunks[0]?.startLine).toBe(4);
    expect(chunks[0]?.text).toContain("# not a heading");
  });

  it("splits a large section between blocks, then sentences, never over the limit", () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about soil and rain.`);
    const md = `# Big\n\n${sentences.slice(0, 20).join(" ")}\n\n${sentences.slice(20).join(" ")}\n\n\`\`\`\n${"x".repeat(700)}\n\`\`\`\n`;
    const chunks = chunkMarkdown("big.md", md, { maxBytes: 300 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(Buffer.byteLength(c.text)).toBeLessThanOrEqual(300);
      expect(c.headings).toEqual(["Big"]);
    }
    expect(chunks.map((c) => c.ordinal)).toEqual(chunks.map((_, i) => i));
    expect(chunks.filter((c) => /Sentence number 5 talks about soil and rain\./.test(c.text))).toHaveLength(
      1,
    );
    const lines = md.split("\n");
    for (const c of chunks) {
      const firstWords = c.text.split("\n")[0]?.slice(0, 20) ?? "";
      expect(lines.slice(c.startLine - 1, c.endLine).join("\n")).toContain(firstWords);
    }
  });

  it("keeps a heading with no text of its own only when it has no subsections", () => {
    const md = "# Log\n## 09:00 dentist\n## 10:00\n### Standup\nShipped it.\n";
    expect(chunkMarkdown("log.md", md).map((c) => c.headings.join(" > "))).toEqual([
      "Log > 09:00 dentist",
      "Log > 10:00 > Standup",
    ]);
  });

  it("changes only the edited section's ids when one section is edited", () => {
    const before = chunkMarkdown("garden.md", doc);
    const after = chunkMarkdown(
      "garden.md",
      doc.replace("Basil hates the cold.", "Basil hates the cold and wind."),
    );
    const changed = after.filter((c, i) => c.id !== before[i]?.id).map((c) => c.headings.at(-1));
    expect(changed).toEqual(["Herbs"]);
  });

  it("keeps every other id when a section is inserted, and line ranges move with the text", () => {
    const before = chunkMarkdown("garden.md", doc);
    const after = chunkMarkdown("garden.md", doc.replace("## Herbs", "## Peppers\n\nNeed heat.\n\n## Herbs"));
    const beforeIds = new Set(before.map((c) => c.id));
    expect(after.filter((c) => !beforeIds.has(c.id)).map((c) => c.headings.at(-1))).toEqual(["Peppers"]);
    const basil = (chunks: typeof before) => chunks.find((c) => c.headings.at(-1) === "Basil");
    expect(basil(after)?.startLine).toBe((basil(before)?.startLine ?? 0) + 4);
  });

  it("numbers repeated headings so identical sections keep distinct ids", () => {
    const chunks = chunkMarkdown("dup.md", "## Notes\n\nSame.\n\n## Notes\n\nSame.\n");
    expect(chunks.map((c) => c.ordinal)).toEqual([0, 1]);
    expect(chunks[0]?.id).not.toBe(chunks[1]?.id);
  });

  it("ids depend on the path", () => {
    expect(chunkMarkdown("a.md", "hello")[0]?.id).not.toBe(chunkMarkdown("b.md", "hello")[0]?.id);
  });

  it("refuses a chunk size too small to hold a sentence", () => {
    expect(() => chunkMarkdown("a.md", "x", { maxBytes: 10 })).toThrow(/maxBytes/);
  });

  it("returns nothing for an empty or blank file", () => {
    expect(chunkMarkdown("a.md", "")).toEqual([]);
    expect(chunkMarkdown("a.md", "\n\n   \n")).toEqual([]);
  });
});
