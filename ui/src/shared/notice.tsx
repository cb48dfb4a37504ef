import { Show } from "solid-js";

export interface NoticeMessage {
  level: "error" | "info";
  text: string;
}

/** A controller's message: an error is announced at once (alert), anything else politely (status). */
export function Notice(props: { message: NoticeMessage | null | undefined }) {
  return (
    <Show when={props.message}>
      {(m) => (
        <p class={`notice ${m().level}`} role={m().level === "error" ? "alert" : "status"}>
          {m().text}
        </p>
      )}
    </Show>
  );
}
