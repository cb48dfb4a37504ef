import { createSignal, type JSX, Show } from "solid-js";
import { showAllLabel } from "./collapse.js";

/** Folds its content to a screenful when `long`, with a button to show all of it (and fold it again). */
export function Collapsible(props: { long: boolean; text: string; children: JSX.Element }) {
  const [open, setOpen] = createSignal(false);
  return (
    <div class="collapsible" data-collapsed={props.long && !open() ? "true" : "false"}>
      {props.children}
      <Show when={props.long}>
        <button type="button" class="show-all" aria-expanded={open()} onClick={() => setOpen(!open())}>
          {open() ? "Show less" : showAllLabel(props.text)}
        </button>
      </Show>
    </div>
  );
}
