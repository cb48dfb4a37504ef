import { describe, expect, it } from "vitest";
import { parsedBlocks, scanBlocks, topBlocks } from "./markdown-blocks.js";
import { seededRandom } from "./vector/kmeans.js";

const note = `# Trip to Kyoto

We stayed **three nights** near the station.
The ryokan was quiet.

## Packing list

- passport
- rail pass
  bought online
- umbrella

Steps for the rail pass:
1. exchange the voucher
2. reserve seats

The voucher costs
2. nothing: a number other than 1 cannot interrupt a paragraph,
    and an indented line continues it.

\`\`\`sh
# not a heading
npm run trip
\`\`\`

### Food \`ramen\` & *tea* ###

- Ichiran: open late
  \`\`\`
  ticket machine
  \`\`\`

- Tea house

* another list

+ and another

#hashtag is text
`;

// Lines that take every branch of the scanner, and lines that send a document to the parser.
const LINES = [
  "",
  "",
  "  ",
  "text here",
  "more text  ",
  "# Head",
  "## Sub *em*",
  "### x ###",
  "#5 not",
  "#",
  "## ",
  "- item",
  "- item two",
  "* star",
  "+ plus",
  "  - nested",
  "  cont",
  "   three",
  "    four",
  "      six",
  "1. one",
  "2. two",
  "1) paren",
  "10. ten",
  "```",
  "```js",
  "~~~",
  "~~~~",
  "````",
  "  ```",
  "code { x }",
  "---",
  "***",
  "- - -",
  "===",
  "> quote",
  "<div>",
  "[ref]: /url",
  "[link] text",
  "**bold** start",
  "_under_",
  "-dash",
  "1.5 liters",
  "2024. year",
  "# [x]",
  "# a &amp; b",
  "# `code` here",
  "\\# escaped",
  "- ",
  "-",
  "1.",
  "-  two spaces",
  "a\\",
  "foo #",
  "   # indented h",
  "    ```",
  "* * *",
  "__",
  "- # head in item",
  "- > quote in item",
  "- ```",
  "<!-- c -->",
  "| a | b |",
  "   - three-indent item",
  " - one-indent item",
  "1. - mix",
  "- 1. mix",
  "Café › naïve",
  "tab\there",
  "```` ` ````",
  "~~~ info `x`",
];

describe("top-level markdown blocks", () => {
  it("scans a note of headings, paragraphs, lists and fenced code exactly as the CommonMark parser reads it", () => {
    const scanned = scanBlocks(note);
    expect(scanned).toBeDefined();
    expect(scanned).toEqual(parsedBlocks(note));
    expect(scanned?.filter((b) => b.kind === "heading").map((b) => b.kind === "heading" && b.text)).toEqual([
      "Trip to Kyoto",
      "Packing list",
      "Food ramen & tea",
    ]);
  });

  it("leaves documents it cannot place with certainty to the parser", () => {
    for (const doc of [
      "> a quote\n",
      "Title\n=====\n",
      "para\n\n    indented code\n",
      "[x]: /url\n\n# [x]\n",
      "a\r\nb",
    ]) {
      expect(scanBlocks(doc), doc).toBeUndefined();
      expect(topBlocks(doc)).toEqual(parsedBlocks(doc));
    }
  });

  it("agrees with the parser on every generated document it scans", () => {
    const random = seededRandom(17);
    let scanned = 0;
    for (let i = 0; i < 20_000; i++) {
      const count = 1 + Math.floor(random() * 12);
      const lines = Array.from({ length: count }, () => LINES[Math.floor(random() * LINES.length)] as string);
      const doc = lines.join("\n") + (random() < 0.5 ? "\n" : "");
      const fast = scanBlocks(doc);
      if (!fast) continue;
      scanned++;
      expect(fast, JSON.stringify(doc)).toEqual(parsedBlocks(doc));
    }
    // The comparison means something only if the scanner took a good share of the documents.
    expect(scanned).toBeGreaterThan(4_000);
  });
});
