// The conversation pane: message bubbles, tool rows, notices and the typing indicator. It only renders;
// app.js decides what to show. New content follows the bottom unless the reader has scrolled up.
import { $, el } from "./dom.js";
import { renderMarkdown } from "./markdown.js";

const pane = $("messages");
const emptyState = $("empty");
let typing = null;

export function clearConversation() {
  typing = null;
  pane.replaceChildren(emptyState);
  emptyState.hidden = false;
}

export function setLoading(loading) {
  if (loading) pane.setAttribute("aria-busy", "true");
  else pane.removeAttribute("aria-busy");
}

/** A stored entry of GET /api/sessions/:id. */
export function showEntry(entry) {
  const meta = entry.meta ?? {};
  if (entry.role === "user" || entry.role === "assistant") addMessage(entry.role, entry.content);
  else if (entry.role === "tool")
    addTool({
      tool: meta.tool,
      isError: meta.is_error === true,
      outcome: meta.outcome,
      content: entry.content,
    });
  else addNotice("error", entry.content);
}

export function addMessage(role, text) {
  const message = el("article", `message ${role}`);
  message.setAttribute("aria-label", role === "user" ? "You" : "Agent");
  const body = el("div", "body");
  if (role === "user") body.textContent = text;
  else body.append(renderMarkdown(text));
  message.append(body);
  append(message);
  return message;
}

/**
 * An assistant message that grows as deltas arrive, rendered at most once a frame. It is a polite live region,
 * busy until closed, so a screen reader reads the finished text rather than every fragment.
 */
export function startStreamingMessage() {
  const message = addMessage("assistant", "");
  const body = message.firstElementChild;
  message.setAttribute("aria-live", "polite");
  message.setAttribute("aria-busy", "true");
  let text = "";
  let pending = false;
  const render = () => {
    pending = false;
    const stick = nearBottom();
    body.replaceChildren(renderMarkdown(text));
    if (stick) scrollToEnd();
  };
  return {
    append(delta) {
      text += delta;
      if (!pending) requestAnimationFrame(render);
      pending = true;
    },
    close() {
      render();
      message.setAttribute("aria-busy", "false");
    },
  };
}

export function addTool({ tool, isError, outcome, content }) {
  const row = el("details", `tool ${isError ? "failed" : "ok"}`);
  const summary = el("summary");
  summary.append(
    el("span", "tool-name", String(tool ?? "tool")),
    el("span", "tool-status", isError ? "error" : "ok"),
  );
  if (typeof outcome === "string" && outcome) summary.append(el("span", "tool-outcome", outcome));
  row.append(summary, el("pre", "tool-output", content || "(no output)"));
  append(row);
}

/** kind: "error" (announced at once) or "info". */
export function addNotice(kind, text) {
  const box = el("div", `notice ${kind}`, text);
  box.setAttribute("role", kind === "error" ? "alert" : "status");
  append(box);
}

export function showTyping(shown) {
  typing?.remove();
  typing = null;
  if (!shown) return;
  typing = el("div", "typing");
  typing.setAttribute("role", "status");
  typing.append(el("span", "dot"), el("span", "dot"), el("span", "dot"));
  typing.append(el("span", "visually-hidden", "The agent is working…"));
  append(typing);
}

/** Adds at the end, above the typing indicator. */
function append(node) {
  emptyState.hidden = true;
  const stick = nearBottom();
  if (typing?.isConnected && node !== typing) pane.insertBefore(node, typing);
  else pane.append(node);
  if (stick) scrollToEnd();
}

const nearBottom = () => pane.scrollHeight - pane.scrollTop - pane.clientHeight < 80;
export const scrollToEnd = () => pane.scrollTo({ top: pane.scrollHeight });
