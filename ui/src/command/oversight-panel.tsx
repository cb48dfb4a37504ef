import { For, Show } from "solid-js";
import { localDateTime } from "../shared/format.js";
import { ageOf } from "./command-health.js";
import type { OversightController } from "./oversight-controller.js";

/** Escalations to acknowledge, and whether command's watchers are alive: the duty officer and the sentinel. */
export function OversightPanel(props: { oversight: OversightController }) {
  const s = props.oversight.state;
  return (
    <>
      <section class="card" aria-labelledby="escalations-title">
        <h2 id="escalations-title">Escalations</h2>
        <Show when={s.escalationsError}>
          <p class="notice error">{s.escalationsError}</p>
        </Show>
        <Show when={!s.escalationsError && s.escalations.length === 0}>
          <p class="muted">No open escalations.</p>
        </Show>
        <ul class="escalations">
          <For each={s.escalations}>
            {(e) => (
              <li data-escalation={e.escalation_id}>
                <span class="status-pill" data-status={e.severity === "CRITICAL" ? "failed" : "suspended"}>
                  {e.severity}
                </span>{" "}
                {e.reason ?? "no reason given"} <span class="muted">{e.order_id ?? e.run_id ?? e.route}</span>{" "}
                <button
                  type="button"
                  disabled={s.acking === e.escalation_id}
                  onClick={() => void props.oversight.ack(e.escalation_id)}
                >
                  Acknowledge
                </button>
              </li>
            )}
          </For>
        </ul>
      </section>
      <section class="card" aria-labelledby="health-title">
        <h2 id="health-title">Patrol and sentinel</h2>
        <Show when={s.health} fallback={<p class="muted">{s.healthError ?? "Loading…"}</p>}>
          {(h) => (
            <dl class="facts">
              <dt>Last patrol</dt>
              <dd data-field="last-patrol">
                {h().lastTickAt ? ageOf(h().lastTickAt ?? "", Date.now()) : "no patrol tick recorded"}
              </dd>
              <dt>Degraded</dt>
              <dd data-field="degraded">
                {h()
                  .degraded.map((d) => `${d.service}: ${d.reason}`)
                  .join("; ") || "none"}
              </dd>
              <dt>Sentinel</dt>
              <dd data-field="sentinel">
                {h().sentinel
                  ? `${localDateTime(h().sentinel?.at)}: ${h().sentinel?.what}`
                  : "no incident: the duty officer has not been found dead or ineffective"}
              </dd>
            </dl>
          )}
        </Show>
      </section>
    </>
  );
}
