import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { Me } from "../api/endpoints.js";
import { createGenerations } from "../shared/generation.js";

export interface AuthState {
  phase: "checking" | "signed-out" | "signed-in";
  me: Me | null;
  /** Why the sign-in form is showing, or what went wrong signing in (or, signed in, signing out everywhere). */
  message: string;
  busy: boolean;
}

export type AuthAction =
  | { type: "check" }
  | { type: "sign-in"; token: string }
  | { type: "sign-out" }
  /** Ends every browser session of the user (other devices too) and unused login links; tokens keep working. */
  | { type: "sign-out-everywhere" }
  | { type: "expired" };

/**
 * Who is signed in: the cookie session (from the one-time login link or a token traded at POST
 * /api/auth/login). Any 401 the API client sees ends the session on screen.
 */
export function createAuthController(api: ApiClient) {
  const [state, setState] = createStore<AuthState>({ phase: "checking", me: null, message: "", busy: false });
  const generations = createGenerations();
  const signedOut = (message: string) => setState({ phase: "signed-out", me: null, message, busy: false });
  const stopListening = api.onUnauthorized(() => {
    if (state.phase === "signed-in") dispatch({ type: "expired" });
  });

  async function dispatch(action: AuthAction): Promise<void> {
    switch (action.type) {
      case "check": {
        const ticket = generations.next("me");
        const me = await api.call("GET /api/me");
        if (!generations.isCurrent("me", ticket)) return;
        if (me.ok) setState({ phase: "signed-in", me: me.data, message: "", busy: false });
        else signedOut(me.status === 401 ? "" : me.error.message);
        return;
      }
      case "sign-in": {
        const token = action.token.trim();
        if (!token) return void setState("message", "Enter your user token.");
        setState({ busy: true, message: "" });
        const answer = await api.call("POST /api/auth/login", { body: { token } });
        if (answer.ok) setState({ phase: "signed-in", me: answer.data, message: "", busy: false });
        else setState({ busy: false, message: answer.error.message });
        return;
      }
      case "sign-out":
        await api.call("POST /api/auth/logout");
        return signedOut("You are signed out.");
      case "sign-out-everywhere": {
        setState({ busy: true, message: "" });
        const answer = await api.call("POST /api/auth/logout-all");
        if (!answer.ok) return void setState({ busy: false, message: answer.error.message });
        const ended = answer.data.sessions_ended;
        return signedOut(
          `You are signed out everywhere: ${ended} browser session${ended === 1 ? "" : "s"} ended. Your API token still works; rotate it to end it too.`,
        );
      }
      case "expired":
        return signedOut("Your sign-in has ended: sign in again.");
    }
  }

  return {
    state,
    dispatch,
    dispose() {
      generations.invalidateAll();
      stopListening();
    },
  };
}

export type AuthController = ReturnType<typeof createAuthController>;
