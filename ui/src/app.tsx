import { lazy, Match, onCleanup, onMount, Switch } from "solid-js";
import { createApiClient } from "./api/api-client.js";
import { createAuthController } from "./auth/auth-controller.js";
import { LoginView } from "./auth/login-view.js";
import { ChatView } from "./chat/chat-view.js";
import { useRoute } from "./shared/route.js";
import { ScreenBoundary } from "./shared/screen-boundary.js";
import { AppShell } from "./shell/app-shell.js";

// Screens other than the chat load on first use: the first paint needs only the chat.
const MemoryView = lazy(() => import("./memory/memory-view.js"));
const InstructionsView = lazy(() => import("./instructions/instructions-view.js"));
const CronView = lazy(() => import("./cron/cron-view.js"));
const RunsView = lazy(() => import("./runs/runs-view.js"));
const CommandView = lazy(() => import("./command/command-view.js"));
const SoulView = lazy(() => import("./soul/soul-view.js"));
const SkillsView = lazy(() => import("./skills/skills-view.js"));
const MailView = lazy(() => import("./mail/mail-view.js"));
const SettingsView = lazy(() => import("./settings/settings-view.js"));
const AuditView = lazy(() => import("./audit/audit-view.js"));
const UsageView = lazy(() => import("./usage/usage-view.js"));
const MessagingView = lazy(() => import("./messaging/messaging-view.js"));
const AdminView = lazy(() => import("./admin/admin-view.js"));
const EvolutionView = lazy(() => import("./evolution/evolution-view.js"));

export function App() {
  const api = createApiClient();
  const auth = createAuthController(api);
  const route = useRoute();
  onMount(() => void auth.dispatch({ type: "check" }));
  onCleanup(() => auth.dispose());
  return (
    <Switch>
      <Match when={auth.state.phase === "checking"}>
        <p class="boot" role="status">
          Loading…
        </p>
      </Match>
      <Match when={auth.state.phase === "signed-out"}>
        <LoginView auth={auth} />
      </Match>
      <Match when={auth.state.phase === "signed-in"}>
        <AppShell api={api} auth={auth} route={route()}>
          <ScreenBoundary view={route().view}>
            <Switch fallback={<ChatView api={api} />}>
              <Match when={route().view === "memory"}>
                <MemoryView api={api} path={route().rest} />
              </Match>
              <Match when={route().view === "instructions"}>
                <InstructionsView api={api} />
              </Match>
              <Match when={route().view === "cron"}>
                <CronView api={api} />
              </Match>
              <Match when={route().view === "runs"}>
                <RunsView api={api} runId={route().rest} />
              </Match>
              <Match when={route().view === "command"}>
                <CommandView api={api} runId={route().rest} admin={auth.state.me?.admin ?? false} />
              </Match>
              <Match when={route().view === "soul"}>
                <SoulView api={api} />
              </Match>
              <Match when={route().view === "skills"}>
                <SkillsView api={api} />
              </Match>
              <Match when={route().view === "mail"}>
                <MailView api={api} />
              </Match>
              <Match when={route().view === "settings"}>
                <SettingsView api={api} me={auth.state.me?.user ?? ""} />
              </Match>
              <Match when={route().view === "audit"}>
                <AuditView api={api} />
              </Match>
              <Match when={route().view === "usage"}>
                <UsageView api={api} me={auth.state.me?.user ?? ""} admin={auth.state.me?.admin ?? false} />
              </Match>
              <Match when={route().view === "messaging"}>
                <MessagingView api={api} />
              </Match>
              <Match when={route().view === "evolution" && auth.state.me?.admin}>
                <EvolutionView api={api} />
              </Match>
              <Match when={route().view === "admin" && auth.state.me?.admin}>
                <AdminView api={api} />
              </Match>
            </Switch>
          </ScreenBoundary>
        </AppShell>
      </Match>
    </Switch>
  );
}
