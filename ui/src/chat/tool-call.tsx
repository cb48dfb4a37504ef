import { Show } from "solid-js";
import { duration } from "../shared/format.js";
import type { ChatItem } from "./chat-items.js";

type ToolItem = Extract<ChatItem, { kind: "tool" }>;

/** Pretty JSON when the arguments are JSON (they are what the model sent, raw). */
function readableArgs(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** One argument line for the summary: `command: ls -la` rather than the whole JSON. */
function argsSummary(args: string | undefined): string {
  if (!args) return "";
  try {
    const value = JSON.parse(args) as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const [first] = Object.entries(value as Record<string, unknown>);
      if (first) return `${first[0]}: ${typeof first[1] === "string" ? first[1] : JSON.stringify(first[1])}`;
    }
  } catch {}
  return args;
}

/** A tool call inline in the conversation: name, arguments, outcome and duration; the output on demand. */
export function ToolCallView(props: { item: ToolItem }) {
  const outcome = () => props.item.outcome ?? (props.item.isError ? "error" : "ok");
  return (
    <details class="tool" classList={{ failed: props.item.isError }} data-tool={props.item.tool}>
      <summary>
        <span class="tool-name">{props.item.tool}</span>
        <span class="tool-args">{argsSummary(props.item.args)}</span>
        <span class="tool-outcome" data-outcome={outcome()}>
          {outcome()}
        </span>
        <Show when={props.item.durationMs !== undefined}>
          <span class="tool-duration">{duration(props.item.durationMs)}</span>
        </Show>
      </summary>
      <Show when={props.item.args}>
        {(args) => (
          <>
            <h4 class="tool-label">Arguments</h4>
            <pre class="tool-block">{readableArgs(args())}</pre>
          </>
        )}
      </Show>
      <h4 class="tool-label">Output</h4>
      <pre class="tool-block tool-output">{props.item.content || "(no output)"}</pre>
    </details>
  );
}
