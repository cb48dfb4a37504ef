import { highlightCode } from "./code-highlight.js";

// A fenced code block: its language named above it, a Copy button, and colours from code-highlight.ts. The
// code itself stays text nodes; colours are spans with a class.

/** Appends the block; `language` is the fence's word (may be empty). */
export function appendCodeBlock(parent: Node, code: string, language: string, doc: Document): void {
  const block = doc.createElement("div");
  block.setAttribute("class", "code-block");
  const head = doc.createElement("div");
  head.setAttribute("class", "code-head");
  const name = doc.createElement("span");
  name.setAttribute("class", "code-lang");
  name.textContent = language || "text";
  const copy = doc.createElement("button");
  copy.setAttribute("type", "button");
  copy.setAttribute("class", "code-copy");
  copy.setAttribute("aria-label", `Copy the ${language || "text"} code`);
  copy.textContent = "Copy";
  head.append(name, copy);
  const pre = doc.createElement("pre");
  const node = doc.createElement("code");
  if (language) node.setAttribute("data-language", language);
  for (const token of highlightCode(code, language)) {
    if (token.kind === "plain") node.append(doc.createTextNode(token.text));
    else {
      const span = doc.createElement("span");
      span.setAttribute("class", `tok-${token.kind}`);
      span.textContent = token.text;
      node.append(span);
    }
  }
  copy.addEventListener("click", () => void copyText(node, copy));
  pre.append(node);
  block.append(head, pre);
  parent.appendChild(block);
}

/**
 * Copies the code: the Clipboard API where the page is a secure context (https, localhost), otherwise the
 * older copy command on the selected code (a warden reached over plain http on the LAN).
 */
async function copyText(code: HTMLElement, button: HTMLElement): Promise<void> {
  const text = code.textContent ?? "";
  let copied = false;
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      copied = true;
    }
  } catch {
    copied = false;
  }
  if (!copied) {
    const range = document.createRange();
    range.selectNodeContents(code);
    const selection = getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    copied = document.execCommand("copy");
  }
  button.textContent = copied ? "Copied" : "Press Ctrl+C";
  button.setAttribute("data-copied", copied ? "true" : "false");
  setTimeout(() => {
    button.textContent = "Copy";
    button.removeAttribute("data-copied");
  }, 2_000);
}
