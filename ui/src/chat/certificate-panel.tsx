import { createMemo, For, onCleanup, Show } from "solid-js";
import type { Certificate } from "../../../src/contracts/attest/index.js";
import { localDateTime } from "../shared/format.js";
import type { CertificateController } from "./certificate-controller.js";

/**
 * A message's certificate, under the message: what it pins (request, reply, brain commit and node, when, until
 * when), whether `ironclaw verify` accepts it and by which checks, and the certificate's bytes to keep.
 */
export function CertificatePanel(props: { certificates: CertificateController }) {
  const { state, dispatch } = props.certificates;
  const detail = () => state.shown?.detail ?? null;
  const certificate = () => detail()?.certificate as Certificate | undefined;
  // The stored bytes: canonical JSON parses and prints back to itself.
  const download = createMemo(() => {
    const shown = detail();
    if (!shown) return undefined;
    const url = URL.createObjectURL(
      new Blob([JSON.stringify(shown.certificate)], { type: "application/json" }),
    );
    onCleanup(() => URL.revokeObjectURL(url));
    return url;
  });
  const expires = () => {
    const replay = certificate()?.replay as { expires_at?: string } | undefined;
    return replay?.expires_at;
  };
  return (
    <section class="certificate" aria-label="Certificate">
      <header class="certificate-head">
        <h3>Certificate</h3>
        <Show when={detail()} fallback={<span class="muted">{state.shown?.error || "Checking…"}</span>}>
          {(d) => (
            <span class="status-pill" data-status={d().verify.ok ? "succeeded" : "failed"}>
              {d().verify.ok ? "verified" : "not verified"}
            </span>
          )}
        </Show>
        <button type="button" class="link" onClick={() => void dispatch({ type: "close" })}>
          Close
        </button>
      </header>
      <Show when={certificate()}>
        {(c) => (
          <>
            <dl class="facts">
              <dt>Job</dt>
              <dd data-fact="job">{c().job_id}</dd>
              <dt>Request hash</dt>
              <dd>{c().request_hash}</dd>
              <dt>Response hash</dt>
              <dd>{c().result.response_sha256 ?? "none"}</dd>
              <dt>Brain commit</dt>
              <dd>{c().commit_sha_required ?? "none pinned"}</dd>
              <dt>Brain state (node)</dt>
              <dd>{state.shown?.turn.node_id ?? "none recorded"}</dd>
              <dt>Ran</dt>
              <dd>
                {localDateTime(c().runtime.started_at)} – {localDateTime(c().runtime.finished_at)}
              </dd>
              <dt>Issued</dt>
              <dd>{localDateTime(c().timestamp)}</dd>
              <dt>Expires</dt>
              <dd>{expires() ? localDateTime(expires()) : "never"}</dd>
            </dl>
            <ul class="certificate-checks">
              <For each={detail()?.verify.checks ?? []}>
                {(check) => (
                  <li data-status={check.status}>
                    <strong>{check.check}</strong>: {check.status}
                    <Show when={check.reason}> — {check.reason}</Show>
                  </li>
                )}
              </For>
            </ul>
            <a class="button" href={download()} download={`${c().job_id}.json`}>
              Download certificate
            </a>
          </>
        )}
      </Show>
    </section>
  );
}
