import { For, Show } from "solid-js";
import type { PromotionResult, ProposalDetail } from "../api/evolution-endpoints.js";
import type { EvolutionController } from "./evolution-controller.js";

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The last promotion or dry run: each file's exact text before and after, or why it was refused. */
export function PromotionPanel(props: { result: PromotionResult }) {
  return (
    <section class="proposal-panel" aria-labelledby="promotion-title">
      <h2 id="promotion-title">{props.result.dry_run ? "Dry run: nothing written" : "Promotion"}</h2>
      <For each={props.result.changes} fallback={<p class="muted">No approved proposal to promote.</p>}>
        {(change) => (
          <article class="promotion-change" data-change={change.proposal_id}>
            <p>
              <code>{change.path}</code> of {change.user_id ?? "nobody"}: {change.outcome.replace("_", " ")}
              {change.reason ? ` — ${change.reason}` : ""}
            </p>
            <Show when={change.after !== null}>
              <div class="evidence-chain">
                <figure>
                  <figcaption>Before</figcaption>
                  <pre>{change.before ?? "(no file)"}</pre>
                </figure>
                <figure>
                  <figcaption>After</figcaption>
                  <pre>{change.after}</pre>
                </figure>
              </div>
            </Show>
          </article>
        )}
      </For>
    </section>
  );
}

export function ProposalPanel(props: { detail: ProposalDetail; controller: EvolutionController }) {
  const p = () => props.detail.proposal;
  return (
    <section class="proposal-panel" aria-labelledby="proposal-title">
      <header class="screen-bar">
        <h2 id="proposal-title">{p().summary}</h2>
        <button type="button" class="ghost" onClick={() => void props.controller.dispatch({ type: "close" })}>
          Close
        </button>
      </header>
      <p>
        Changes <code>{p().change.path}</code> in the brain of{" "}
        <strong>{props.detail.target.user_id ?? "nobody"}</strong>
        <Show when={props.detail.target.refusal}>{(why) => <> — {why()}</>}</Show>, appending:
      </p>
      <pre class="proposed-line">{p().change.line}</pre>
      <h3>Gate {p().gate.passed ? "passed" : "not passed"}</h3>
      <ul class="gate-checks">
        <For each={p().gate.checks}>
          {(check) => (
            <li data-met={check.met ? "yes" : "no"}>
              {check.met ? "✓" : "✗"} {check.rule}: {check.observed} (needs {check.threshold})
            </li>
          )}
        </For>
      </ul>
      <p class="muted">
        Risk {p().risk.level}: {p().risk.reasons.join("; ")}.
      </p>
      <h3>Evidence: raw envelope → projected record</h3>
      <For each={props.detail.evidence}>
        {(link) => (
          <article class="evidence" data-record={link.record_id}>
            <p>
              Session <code>{link.session_id}</code> of {link.submitted_by ?? "the host"}: {link.status},
              score {link.score}
              {link.comment ? ` — “${link.comment}”` : ""}
            </p>
            <div class="evidence-chain">
              <figure>
                <figcaption>Raw envelope, as received</figcaption>
                <pre>{link.raw_envelope ? json(link.raw_envelope) : "(direct feedback: no envelope)"}</pre>
              </figure>
              <figure>
                <figcaption>Projected record</figcaption>
                <pre>{link.projected ? json(link.projected) : "(not projected)"}</pre>
              </figure>
            </div>
          </article>
        )}
      </For>
    </section>
  );
}
