// A small markdown subset rendered as DOM nodes, never as an HTML string: whatever the agent writes (including
// "<script>") ends up as text. Blocks: paragraphs, ```fenced code```, lists, headings. Inline: `code`,
// **bold**, and [links](https://…) to http(s) addresses only. An unclosed fence (mid-stream) runs to the end.

const FENCE = /^\s*```\s*([\w+-]*)/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const INLINE = /`([^`\n]+)`|\*\*([^*\n]+?)\*\*|\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;

/** The text as a DocumentFragment of safe nodes. */
export function renderMarkdown(text, doc = document) {
  const fragment = doc.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") i += 1;
    else if (FENCE.test(line)) i = appendCode(fragment, lines, i, doc);
    else if (BULLET.test(line) || NUMBERED.test(line)) i = appendList(fragment, lines, i, doc);
    else if (HEADING.test(line)) i = appendHeading(fragment, line, i, doc);
    else i = appendParagraph(fragment, lines, i, doc);
  }
  return fragment;
}

function appendCode(parent, lines, start, doc) {
  const language = FENCE.exec(lines[start] ?? "")?.[1] ?? "";
  let end = start + 1;
  while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? "")) end += 1;
  const pre = doc.createElement("pre");
  const code = doc.createElement("code");
  if (language) code.setAttribute("data-language", language);
  code.textContent = lines.slice(start + 1, end).join("\n");
  pre.append(code);
  parent.append(pre);
  return end + 1;
}

function appendList(parent, lines, start, doc) {
  const pattern = BULLET.test(lines[start] ?? "") ? BULLET : NUMBERED;
  const list = doc.createElement(pattern === BULLET ? "ul" : "ol");
  let i = start;
  for (let match = pattern.exec(lines[i] ?? ""); match; match = pattern.exec(lines[i] ?? "")) {
    const item = doc.createElement("li");
    appendInline(item, match[1] ?? "", doc);
    list.append(item);
    i += 1;
  }
  parent.append(list);
  return i;
}

function appendHeading(parent, line, index, doc) {
  const [, hashes = "#", title = ""] = HEADING.exec(line) ?? [];
  // Headings in a chat bubble stay modest: # is h3, ## and deeper h4.
  const heading = doc.createElement(hashes.length === 1 ? "h3" : "h4");
  appendInline(heading, title, doc);
  parent.append(heading);
  return index + 1;
}

function appendParagraph(parent, lines, start, doc) {
  let end = start;
  const startsBlock = (l) =>
    l.trim() === "" || FENCE.test(l) || BULLET.test(l) || NUMBERED.test(l) || HEADING.test(l);
  while (end < lines.length && (end === start || !startsBlock(lines[end] ?? ""))) end += 1;
  const paragraph = doc.createElement("p");
  lines.slice(start, end).forEach((line, n) => {
    if (n > 0) paragraph.append(doc.createElement("br"));
    appendInline(paragraph, line, doc);
  });
  parent.append(paragraph);
  return end;
}

function appendInline(parent, text, doc) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) parent.append(doc.createTextNode(text.slice(last, match.index)));
    const [, code, bold, label, href] = match;
    if (code !== undefined) parent.append(element(doc, "code", code));
    else if (bold !== undefined) parent.append(element(doc, "strong", bold));
    else parent.append(link(doc, label ?? href, href));
    last = match.index + match[0].length;
  }
  if (last < text.length) parent.append(doc.createTextNode(text.slice(last)));
}

function element(doc, tag, text) {
  const node = doc.createElement(tag);
  node.textContent = text;
  return node;
}

function link(doc, label, href) {
  const anchor = element(doc, "a", label);
  anchor.setAttribute("href", href);
  anchor.setAttribute("target", "_blank");
  anchor.setAttribute("rel", "noopener noreferrer");
  return anchor;
}
