import { createEffect } from "solid-js";
import { renderMarkdown } from "../shared/markdown.js";
import { linkCitations } from "./citation-links.js";

/** An answer of the agent: markdown as safe DOM nodes, its citations of the brain as links to Memory. */
export function AnswerView(props: { text: string; class?: string }) {
  let host!: HTMLDivElement;
  createEffect(() => {
    const fragment = renderMarkdown(props.text);
    linkCitations(fragment);
    host.replaceChildren(fragment);
  });
  return <div ref={host} class={props.class ?? "markdown"} />;
}
