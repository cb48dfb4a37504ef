import { createSignal } from "solid-js";

export interface ComposerProps {
  working: boolean;
  stopping: boolean;
  onSend(text: string): Promise<boolean>;
  onStop(): void;
}

/** The message box: Enter sends, Shift+Enter starts a new line; while the agent answers, the button stops it. */
export function Composer(props: ComposerProps) {
  const [text, setText] = createSignal("");
  let input!: HTMLTextAreaElement;
  const autosize = () => {
    // A style property set from script is CSSOM, which the CSP allows (style attributes in markup it does not).
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight, 240)}px`;
  };
  const send = async () => {
    if (await props.onSend(text())) {
      setText("");
      input.value = "";
      autosize();
    }
  };
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        if (props.working) props.onStop();
        else void send();
      }}
    >
      <label for="message" class="visually-hidden">
        Message
      </label>
      <textarea
        id="message"
        ref={input}
        rows={1}
        placeholder="Message your agent…"
        aria-describedby="composer-hint"
        value={text()}
        onInput={(e) => {
          setText(e.currentTarget.value);
          autosize();
        }}
        onKeyDown={(e) => {
          if (e.key !== "Enter" || e.shiftKey || e.isComposing) return;
          e.preventDefault();
          if (!props.working) void send();
        }}
      />
      <button
        type="submit"
        class={props.working ? "stop" : "primary"}
        disabled={props.stopping}
        title={props.working ? "Stop the answer (Esc)" : undefined}
      >
        {props.working ? (props.stopping ? "Stopping…" : "Stop") : "Send"}
      </button>
      <p id="composer-hint" class="visually-hidden">
        Enter sends the message; Shift+Enter starts a new line; Esc stops an answer being written.
      </p>
    </form>
  );
}
