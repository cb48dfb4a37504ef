import { createEffect } from "solid-js";
import { renderMarkdown } from "./markdown.js";

/** Renders markdown text as safe DOM nodes (see markdown.ts); re-renders when the text changes. */
export function MarkdownView(props: { text: string; class?: string }) {
  let host!: HTMLDivElement;
  createEffect(() => host.replaceChildren(renderMarkdown(props.text)));
  return <div ref={host} class={props.class ?? "markdown"} />;
}
