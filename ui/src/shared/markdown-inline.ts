// Inline markdown as safe DOM nodes: `code`, **bold**, *italic* and [links](https://…) to http(s) only;
// everything else, markup included, is text.

const INLINE =
  /`([^`\n]+)`|\*\*([^*\n]+?)\*\*|(?<![\w*])\*([^*\s][^*\n]*?)\*(?![\w*])|\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;

export function appendInline(parent: Element, text: string, doc: Document): void {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const at = match.index ?? 0;
    if (at > last) parent.append(doc.createTextNode(text.slice(last, at)));
    const [, code, bold, italic, label, href] = match;
    if (code !== undefined) parent.append(textElement(doc, "code", code));
    else if (bold !== undefined) parent.append(textElement(doc, "strong", bold));
    else if (italic !== undefined) parent.append(textElement(doc, "em", italic));
    else parent.append(link(doc, label ?? href ?? "", href ?? ""));
    last = at + match[0].length;
  }
  if (last < text.length) parent.append(doc.createTextNode(text.slice(last)));
}

export function textElement(doc: Document, tag: string, text: string): HTMLElement {
  const node = doc.createElement(tag);
  node.textContent = text;
  return node;
}

function link(doc: Document, label: string, href: string): HTMLElement {
  const anchor = textElement(doc, "a", label);
  anchor.setAttribute("href", href);
  anchor.setAttribute("target", "_blank");
  anchor.setAttribute("rel", "noopener noreferrer");
  return anchor;
}
