import { hrefOf } from "../shared/route.js";

// `[memory.md#Boiler]`, `[sessions/2026-03-03/01J….md#09:15:00 — user]`: the agent cites the brain passages an
// answer used (src/agent/citations.ts asks it to). A markdown link `[text](url)` is not a citation.
const CITATION = /\[([^[\]\s#][^[\]#\n]*?\.md)(?:#([^[\]\n]+))?\](?!\()/g;

/** Where a citation leads: the memory inspector with the file open at the heading. */
export function citationHref(path: string, heading?: string): string {
  return hrefOf("memory", heading ? `${path}#${heading}` : path);
}

/**
 * Turns the citations in rendered markdown into links to the memory inspector. Only text nodes are touched
 * (the text stays text), and never inside code or an existing link.
 */
export function linkCitations(root: Node, doc: Document = document): void {
  const texts: Text[] = [];
  const walk = (node: Node) => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === 3) texts.push(child as Text);
      else if (child.nodeType === 1 && !["CODE", "PRE", "A"].includes((child as Element).tagName))
        walk(child);
    }
  };
  walk(root);
  for (const node of texts) {
    const text = node.data;
    const matches = [...text.matchAll(CITATION)];
    if (matches.length === 0) continue;
    const fragment = doc.createDocumentFragment();
    let last = 0;
    for (const match of matches) {
      const at = match.index ?? 0;
      if (at > last) fragment.append(doc.createTextNode(text.slice(last, at)));
      const path = (match[1] as string).trim();
      const heading = match[2]?.trim();
      const anchor = doc.createElement("a");
      anchor.setAttribute("href", citationHref(path, heading));
      anchor.setAttribute("class", "citation");
      anchor.setAttribute("title", `Open ${heading ? `${path} at “${heading}”` : path} in Memory`);
      anchor.textContent = match[0];
      fragment.append(anchor);
      last = at + match[0].length;
    }
    if (last < text.length) fragment.append(doc.createTextNode(text.slice(last)));
    node.replaceWith(fragment);
  }
}
