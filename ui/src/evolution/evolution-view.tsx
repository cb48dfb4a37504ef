import { createSignal, For, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import type { GovernanceRow } from "../api/evolution-endpoints.js";
import { localDateTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import { createEvolutionController, type EvolutionController } from "./evolution-controller.js";
import { PromotionPanel, ProposalPanel } from "./evolution-panels.js";
import "./evolution.css";

/** Evolution governance (admins): proposals with readiness, risk and gate, the review queue, the evidence chain. */
export default function EvolutionView(props: { api: ApiClient }) {
  const evolution = createEvolutionController(props.api);
  const { state, dispatch } = evolution;
  onMount(() => void dispatch({ type: "start" }));
  onCleanup(() => evolution.dispose());
  return (
    <main class="evolution-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Evolution</h1>
        <div class="row-actions">
          <button
            type="button"
            disabled={state.busy}
            onClick={() => void dispatch({ type: "promote", dryRun: true })}
          >
            Promote all approved (dry run)
          </button>
          <button type="button" onClick={() => void dispatch({ type: "start" })}>
            Refresh
          </button>
        </div>
      </header>
      <Notice message={state.message} />
      <Show when={state.report}>
        {(report) => (
          <p class="muted">
            {report().proposals.length} proposal(s) from{" "}
            {String(report().generated_from.projected_feedback ?? 0)} projected feedback record(s). Nothing
            reaches an agent without an approval here.
          </p>
        )}
      </Show>
      <div class="table-wrap">
        <table class="governance">
          <caption class="visually-hidden">Proposals</caption>
          <thead>
            <tr>
              <th scope="col">Proposal</th>
              <th scope="col">Target</th>
              <th scope="col">Readiness</th>
              <th scope="col">Risk</th>
              <th scope="col">Review</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <For each={state.report?.proposals ?? []}>
              {(row) => <ProposalRow row={row} controller={evolution} />}
            </For>
          </tbody>
        </table>
      </div>
      <Show when={state.report?.proposals.length === 0}>
        <p class="muted">No proposals: rated sessions give none yet.</p>
      </Show>
      <Show when={state.promotion}>{(result) => <PromotionPanel result={result()} />}</Show>
      <Show when={state.open}>{(detail) => <ProposalPanel detail={detail()} controller={evolution} />}</Show>
    </main>
  );
}

function ProposalRow(props: { row: GovernanceRow; controller: EvolutionController }) {
  const { state, dispatch } = props.controller;
  const id = () => props.row.proposal_id;
  const [reason, setReason] = createSignal("");
  const review = (decision: "approve" | "reject") =>
    void dispatch({ type: "review", proposalId: id(), decision, reason: reason() });
  return (
    <tr data-proposal={id()}>
      <th scope="row">
        <button type="button" class="link" onClick={() => void dispatch({ type: "open", proposalId: id() })}>
          {props.row.kind === "skill_prompt_metadata" ? "Skill" : "Capability"}: {props.row.subject}
        </button>
      </th>
      <td>
        <code>{props.row.target_path}</code>
      </td>
      <td title={props.row.readiness_reasons.join("; ")}>
        <span class="status-pill" data-status={props.row.readiness}>
          {props.row.readiness.replaceAll("_", " ")}
        </span>
      </td>
      <td>{props.row.risk_level}</td>
      <td>
        <span class="status-pill" data-status={props.row.review_status}>
          {props.row.review_status.replace("_", " ")}
        </span>
        <Show when={props.row.last_decision}>
          {(d) => (
            <span class="muted decision">
              {d().action} by {d().operator}, {localDateTime(d().at)}
            </span>
          )}
        </Show>
      </td>
      <td>
        <div class="row-actions">
          <Show when={props.row.review_status === "pending" && props.row.readiness !== "blocked"}>
            <input
              aria-label={`Reason for ${props.row.subject}`}
              placeholder="why (optional)"
              value={reason()}
              onInput={(e) => setReason(e.currentTarget.value)}
            />
            <button type="button" class="primary" disabled={state.busy} onClick={() => review("approve")}>
              Approve
            </button>
          </Show>
          <Show when={props.row.review_status === "pending" || props.row.review_status === "approved"}>
            <button type="button" class="danger" disabled={state.busy} onClick={() => review("reject")}>
              Reject
            </button>
          </Show>
          <Show when={props.row.review_status === "approved"}>
            <button
              type="button"
              class="primary"
              disabled={state.busy}
              onClick={() => void dispatch({ type: "promote", dryRun: false, proposalId: id() })}
            >
              Promote
            </button>
          </Show>
          <Show when={props.row.review_status === "promoted"}>
            <button
              type="button"
              class="danger"
              disabled={state.busy}
              onClick={() => void dispatch({ type: "rollback", proposalId: id() })}
            >
              Roll back
            </button>
          </Show>
        </div>
      </td>
    </tr>
  );
}
