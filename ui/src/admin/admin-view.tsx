import { createSignal, For, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { bytes, duration, localDateTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import { createAdminController } from "./admin-controller.js";

/** Admin: users and tokens, each cell's backend, state, uptime and memory, and the providers by name. */
export default function AdminView(props: { api: ApiClient }) {
  const admin = createAdminController(props.api);
  const { state, dispatch } = admin;
  const [name, setName] = createSignal("");
  const [isAdmin, setIsAdmin] = createSignal(false);
  const [confirming, setConfirming] = createSignal<string | null>(null);
  onMount(() => void dispatch({ type: "start" }));
  onCleanup(() => admin.dispose());
  return (
    <main class="admin-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Admin</h1>
        <button type="button" onClick={() => void dispatch({ type: "start" })}>
          Refresh
        </button>
      </header>
      <Notice message={state.message} />
      <Show when={state.issued}>
        {(issued) => (
          <div class="notice info token" role="status">
            <p>
              The token of <strong>{issued().user}</strong>, shown only this once:
            </p>
            <code class="secret">{issued().token}</code>
            <button type="button" class="ghost" onClick={() => void dispatch({ type: "dismiss-token" })}>
              Done
            </button>
          </div>
        )}
      </Show>
      <section aria-labelledby="users-title">
        <h2 id="users-title">Users</h2>
        <form
          class="inline-form add-user"
          onSubmit={(e) => {
            e.preventDefault();
            void dispatch({ type: "add-user", name: name(), admin: isAdmin() }).then(() => setName(""));
          }}
        >
          <label for="new-user">New user</label>
          <input
            id="new-user"
            value={name()}
            onInput={(e) => setName(e.currentTarget.value)}
            placeholder="alice"
          />
          <label class="check">
            <input
              type="checkbox"
              checked={isAdmin()}
              onChange={(e) => setIsAdmin(e.currentTarget.checked)}
            />
            Admin
          </label>
          <button type="submit" class="primary">
            Add user
          </button>
        </form>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Users</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Role</th>
                <th scope="col">Since</th>
                <th scope="col">Cell uid</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <For each={state.users}>
                {(user) => (
                  <tr>
                    <th scope="row">{user.id}</th>
                    <td>{user.admin ? "admin" : "user"}</td>
                    <td>{localDateTime(user.createdAt)}</td>
                    <td>{user.cellUid}</td>
                    <td class="row-actions">
                      <button type="button" onClick={() => void dispatch({ type: "rotate", name: user.id })}>
                        New token
                      </button>
                      <Show
                        when={confirming() === user.id}
                        fallback={
                          <button type="button" class="danger" onClick={() => setConfirming(user.id)}>
                            Remove
                          </button>
                        }
                      >
                        <button
                          type="button"
                          class="danger"
                          onClick={() => {
                            setConfirming(null);
                            void dispatch({ type: "remove", name: user.id });
                          }}
                        >
                          Remove {user.id}
                        </button>
                        <button type="button" class="ghost" onClick={() => setConfirming(null)}>
                          Keep
                        </button>
                      </Show>
                    </td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="cells-title">
        <h2 id="cells-title">Cells</h2>
        <Show when={state.cells}>
          {(c) => (
            <p class="muted">
              Backend {c().backend}
              {c().isolated ? "" : " — NOT isolated from this host"}
            </p>
          )}
        </Show>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Cells</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">State</th>
                <th scope="col">Backend</th>
                <th scope="col">Uptime</th>
                <th scope="col">Memory</th>
                <th scope="col">Restarts</th>
                <th scope="col">Last crash</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <For each={state.cells?.cells ?? []}>
                {(cell) => (
                  <tr data-cell={cell.user}>
                    <th scope="row">{cell.user}</th>
                    <td>
                      <span
                        class="status-pill"
                        data-status={cell.state}
                        title={
                          cell.state === "suspended"
                            ? "Saved to disk while idle: resumes where it was on the user's next message"
                            : cell.state === "crash_loop"
                              ? "Crashed again and again: not started until the time shown, or a Restart"
                              : undefined
                        }
                      >
                        {cell.state}
                      </span>
                    </td>
                    <td>{cell.backend}</td>
                    <td>{duration(cell.uptime_ms)}</td>
                    <td>{bytes(cell.memory_bytes)}</td>
                    <td>{cell.restarts}</td>
                    <td class="last-crash">
                      <Show when={cell.last_crash} fallback="—">
                        {(crash) => (
                          <details>
                            <summary>
                              {localDateTime(crash().at)}: {crash().reason}
                              <Show when={cell.retry_at}>
                                {(at) => <> — not started again before {localDateTime(at())}</>}
                              </Show>
                            </summary>
                            <pre class="stderr-tail">
                              {crash().stderr || "(the cell wrote nothing to stderr)"}
                            </pre>
                          </details>
                        )}
                      </Show>
                    </td>
                    <td class="row-actions">
                      <button
                        type="button"
                        title="Stop the cell if it runs, forget its crashes and start it again"
                        onClick={() => void dispatch({ type: "restart-cell", user: cell.user })}
                      >
                        Restart
                      </button>
                    </td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="providers-title">
        <h2 id="providers-title">Model providers</h2>
        <p class="muted">Offered to cells by name; keys stay with the warden.</p>
        <ul class="providers">
          <For each={state.providers}>{(p) => <li>{p}</li>}</For>
        </ul>
      </section>
    </main>
  );
}
