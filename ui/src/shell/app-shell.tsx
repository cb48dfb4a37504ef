import { createResource, createSignal, For, type JSX, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import type { AuthController } from "../auth/auth-controller.js";
import { hrefOf, type Route, type View } from "../shared/route.js";
import { soulVersion } from "../shared/soul-signal.js";
import { createTheme } from "../shared/theme.js";

const LABELS: Record<View, string> = {
  chat: "Chat",
  memory: "Memory",
  instructions: "Instructions",
  cron: "Cron",
  runs: "Runs",
  command: "Command",
  soul: "Soul guard",
  skills: "Skills",
  mail: "Mail",
  audit: "Audit",
  usage: "Usage",
  messaging: "Messaging",
  evolution: "Evolution",
  settings: "Settings",
  admin: "Admin",
};

/** The frame around every screen: a skip link, the navigation, theme, who is signed in, sign out (here or everywhere). */
export function AppShell(props: {
  api: ApiClient;
  auth: AuthController;
  route: Route;
  children: JSX.Element;
}) {
  const theme = createTheme();
  // Looked at again on every screen change: a held soul change halts the agent, so it must be visible.
  const [pending] = createResource(
    () => `${props.route.view}:${soulVersion()}`,
    async () => {
      const answer = await props.api.call("GET /api/soul/pending");
      return answer.ok ? answer.data.length : 0;
    },
  );
  // On a phone the screens sit behind a menu button (which carries the soul badge too); a choice closes it.
  const [menuOpen, setMenuOpen] = createSignal(false);
  const views = (): View[] =>
    (Object.keys(LABELS) as View[]).filter(
      (v) => (v !== "admin" && v !== "evolution" && v !== "settings") || props.auth.state.me?.admin,
    );
  return (
    <div class="app">
      {/* A button, not a #main link: the address's hash is the router's. */}
      <button type="button" class="skip-link" onClick={() => document.getElementById("main")?.focus()}>
        Skip to content
      </button>
      <header class="topbar" data-menu={menuOpen() ? "open" : "closed"}>
        <span class="brand">
          <span class="brand-mark" aria-hidden="true" />
          IronClaw
        </span>
        <button
          type="button"
          class="menu-button"
          aria-controls="screens-nav"
          aria-expanded={menuOpen()}
          aria-label={`Screens menu (on ${LABELS[props.route.view]})${(pending() ?? 0) > 0 ? `, ${pending()} soul change waiting` : ""}`}
          onClick={() => setMenuOpen(!menuOpen())}
        >
          <span aria-hidden="true">☰</span> {LABELS[props.route.view]}
          <Show when={(pending() ?? 0) > 0}>
            <span class="badge" aria-hidden="true">
              {pending()}
            </span>
          </Show>
        </button>
        <nav class="views" id="screens-nav" aria-label="Screens">
          <For each={views()}>
            {(view) => (
              <a
                href={hrefOf(view)}
                aria-current={props.route.view === view ? "page" : undefined}
                onClick={() => setMenuOpen(false)}
              >
                {LABELS[view]}
                <Show when={view === "soul" && (pending() ?? 0) > 0}>
                  <span class="badge" aria-hidden="true">
                    {pending()}
                  </span>
                  <span class="visually-hidden">({pending()} waiting)</span>
                </Show>
              </a>
            )}
          </For>
        </nav>
        <span class="spacer" />
        <button
          type="button"
          class="ghost theme-toggle"
          onClick={() => theme.cycle()}
          aria-label={`Theme: ${theme.choice()} (change)`}
        >
          {theme.choice() === "dark" ? "☾" : theme.choice() === "light" ? "☀" : "◐"}
        </button>
        <span class="signed-in-user">
          {props.auth.state.me?.user}
          {props.auth.state.me?.admin ? " (admin)" : ""}
        </span>
        <button
          type="button"
          class="ghost account-action"
          onClick={() => void props.auth.dispatch({ type: "sign-out" })}
        >
          Sign out
        </button>
        <button
          type="button"
          class="ghost account-action"
          title="End every browser session of yours, on every device (your API token keeps working)"
          disabled={props.auth.state.busy}
          onClick={() => void props.auth.dispatch({ type: "sign-out-everywhere" })}
        >
          Sign out everywhere
        </button>
      </header>
      <Show when={props.auth.state.message}>
        <div class="notice error banner" role="alert">
          {props.auth.state.message}
        </div>
      </Show>
      <Show when={(pending() ?? 0) > 0 && props.route.view !== "soul"}>
        <div class="notice error banner" role="alert">
          A change your agent made to its soul, identity or instructions is waiting for approval; the agent is
          halted until someone decides. <a href={hrefOf("soul")}>Review it</a>
        </div>
      </Show>
      <div class="screen">{props.children}</div>
    </div>
  );
}
