import { appendCodeBlock } from "./markdown-code.js";
import { appendInline } from "./markdown-inline.js";
import { appendTable, isTableStart } from "./markdown-table.js";

// Markdown as DOM nodes, never as an HTML string: whatever the agent writes (including "<script>") ends up as
// text. Blocks: paragraphs, ```fenced code``` (highlighted, with a Copy button), lists, headings, quotes and
// GFM tables. Inline: `code`, **bold**, *italic* and [links](https://…) to http(s) addresses only. An
// unclosed fence (mid-stream) runs to the end of the text.

const FENCE = /^\s*```\s*([\w+-]*)/;
const FENCE_END = /^\s*```\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;

const startsBlock = (line: string) =>
  line.trim() === "" ||
  FENCE.test(line) ||
  BULLET.test(line) ||
  NUMBERED.test(line) ||
  HEADING.test(line) ||
  QUOTE.test(line);

/** The text as a DocumentFragment of safe nodes. */
export function renderMarkdown(text: string, doc: Document = document): DocumentFragment {
  const fragment = doc.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") i += 1;
    else if (FENCE.test(line)) i = appendCode(fragment, lines, i, doc);
    else if (BULLET.test(line) || NUMBERED.test(line)) i = appendList(fragment, lines, i, doc);
    else if (HEADING.test(line)) i = appendHeading(fragment, line, i, doc);
    else if (QUOTE.test(line)) i = appendQuote(fragment, lines, i, doc);
    else if (isTableStart(lines, i)) i = appendTable(fragment, lines, i, doc);
    else i = appendParagraph(fragment, lines, i, doc);
  }
  return fragment;
}

function appendCode(parent: Node, lines: string[], start: number, doc: Document): number {
  const language = FENCE.exec(lines[start] ?? "")?.[1] ?? "";
  let end = start + 1;
  while (end < lines.length && !FENCE_END.test(lines[end] ?? "")) end += 1;
  appendCodeBlock(parent, lines.slice(start + 1, end).join("\n"), language, doc);
  return end + 1;
}

function appendList(parent: Node, lines: string[], start: number, doc: Document): number {
  const pattern = BULLET.test(lines[start] ?? "") ? BULLET : NUMBERED;
  const list = doc.createElement(pattern === BULLET ? "ul" : "ol");
  let i = start;
  for (let match = pattern.exec(lines[i] ?? ""); match; match = pattern.exec(lines[i] ?? "")) {
    const item = doc.createElement("li");
    appendInline(item, match[1] ?? "", doc);
    list.append(item);
    i += 1;
  }
  parent.appendChild(list);
  return i;
}

function appendHeading(parent: Node, line: string, index: number, doc: Document): number {
  const [, hashes = "#", title = ""] = HEADING.exec(line) ?? [];
  // Headings inside a message or a preview stay modest: # is h3, ## and deeper h4.
  const heading = doc.createElement(hashes.length === 1 ? "h3" : "h4");
  appendInline(heading, title, doc);
  parent.appendChild(heading);
  return index + 1;
}

function appendQuote(parent: Node, lines: string[], start: number, doc: Document): number {
  let end = start;
  while (end < lines.length && QUOTE.test(lines[end] ?? "")) end += 1;
  const quote = doc.createElement("blockquote");
  quote.append(
    renderMarkdown(
      lines
        .slice(start, end)
        .map((l) => QUOTE.exec(l)?.[1] ?? "")
        .join("\n"),
      doc,
    ),
  );
  parent.appendChild(quote);
  return end;
}

function appendParagraph(parent: Node, lines: string[], start: number, doc: Document): number {
  let end = start;
  while (
    end < lines.length &&
    (end === start || (!startsBlock(lines[end] ?? "") && !isTableStart(lines, end)))
  )
    end += 1;
  const paragraph = doc.createElement("p");
  lines.slice(start, end).forEach((line, n) => {
    if (n > 0) paragraph.append(doc.createElement("br"));
    appendInline(paragraph, line, doc);
  });
  parent.appendChild(paragraph);
  return end;
}
