import { createSignal, type JSX } from "solid-js";

/**
 * One secret's value, typed once: sent to the warden on submit and cleared, never shown again, here or anywhere.
 * `children` lead the row (what the secret is, whether it is set).
 */
export function SecretForm(props: {
  name: string;
  isSet: boolean;
  busy: boolean;
  save: (value: string) => Promise<void>;
  /** The button's words when no value is stored yet, and when one is. */
  actions: { set: string; replace: string };
  children: JSX.Element;
}) {
  const [value, setValue] = createSignal("");
  return (
    <form
      class="secret-form row-actions"
      onSubmit={(e) => {
        e.preventDefault();
        if (value() === "") return;
        void props.save(value()).then(() => setValue(""));
      }}
    >
      {props.children}
      <input
        type="password"
        autocomplete="off"
        aria-label={`Value of ${props.name}`}
        placeholder={props.isSet ? "new value" : "value"}
        value={value()}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <button type="submit" disabled={props.busy || value() === ""}>
        {props.isSet ? props.actions.replace : props.actions.set}
      </button>
    </form>
  );
}
