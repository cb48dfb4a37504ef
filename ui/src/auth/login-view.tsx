import { createSignal, onMount } from "solid-js";
import type { AuthController } from "./auth-controller.js";

/** The sign-in form: a user token, or the one-time link the operator gave (which lands here signed in). */
export function LoginView(props: { auth: AuthController }) {
  const [token, setToken] = createSignal("");
  let input!: HTMLInputElement;
  onMount(() => {
    input.focus();
    performance.mark("ironclaw:login-ready");
  });
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    // A refused token stays in the field, selected, to be corrected or typed over; only a sign-in clears it.
    void props.auth.dispatch({ type: "sign-in", token: token() }).then(() => {
      if (props.auth.state.phase === "signed-in") setToken("");
      else input.select();
    });
  };
  return (
    <main class="signin">
      <form class="card signin-card" onSubmit={submit} novalidate aria-labelledby="signin-title">
        <h1 id="signin-title" class="brand-title">
          <span class="brand-mark" aria-hidden="true" />
          IronClaw
        </h1>
        <p class="muted">
          Sign in with your user token, or open the one-time login link your operator gave you (
          <code>ironclaw user login-link &lt;name&gt;</code>).
        </p>
        <label for="token">User token</label>
        <input
          id="token"
          ref={input}
          type="password"
          autocomplete="current-password"
          spellcheck={false}
          value={token()}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <p class="form-error" role="alert">
          {props.auth.state.message}
        </p>
        <button type="submit" class="primary" disabled={props.auth.state.busy}>
          {props.auth.state.busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
