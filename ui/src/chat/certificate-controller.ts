import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { CertificateDetail, CertifiedTurn } from "../api/endpoints.js";
import { createGenerations } from "../shared/generation.js";

export interface CertificateState {
  /** The open conversation's certified replies, by the conversation entry (seq) each certifies. */
  bySeq: Record<number, CertifiedTurn>;
  /** The certificate open under a message, with its verification once it has loaded. */
  shown: { seq: number; turn: CertifiedTurn; detail: CertificateDetail | null; error: string } | null;
}

export type CertificateAction =
  | { type: "load"; sessionId: string | null }
  /** A turn of the conversation just ended: its certificate is issued shortly after; resolves with its seq. */
  | { type: "follow"; sessionId: string }
  | { type: "show"; seq: number }
  | { type: "close" };

/**
 * Each chat message's certificate: which replies of the open conversation are certified (the warden lists them
 * with the conversation entry they certify), and the one a person opened, with the checks of its verification.
 */
export function createCertificateController(
  api: ApiClient,
  options: { pollMs?: number; polls?: number } = {},
) {
  const [state, setState] = createStore<CertificateState>({ bySeq: {}, shown: null });
  const generations = createGenerations();

  async function list(sessionId: string): Promise<Record<number, CertifiedTurn> | undefined> {
    const answer = await api.call("GET /api/attest/certificates", {
      query: { session: sessionId, limit: 200 },
    });
    if (!answer.ok) return undefined;
    const bySeq: Record<number, CertifiedTurn> = {};
    for (const turn of answer.data.certificates) if (turn.seq !== undefined) bySeq[turn.seq] = turn;
    return bySeq;
  }

  async function load(sessionId: string | null): Promise<undefined> {
    const ticket = generations.next("list");
    setState({ bySeq: {}, shown: null });
    if (!sessionId) return;
    const bySeq = await list(sessionId);
    if (bySeq && generations.isCurrent("list", ticket)) setState("bySeq", bySeq);
  }

  async function follow(sessionId: string): Promise<number | undefined> {
    const ticket = generations.next("list");
    const known = new Set(Object.keys(state.bySeq).map(Number));
    for (let poll = 0; poll < (options.polls ?? 40); poll++) {
      if (poll > 0) await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
      const bySeq = await list(sessionId);
      if (!generations.isCurrent("list", ticket)) return undefined;
      const fresh = Object.keys(bySeq ?? {})
        .map(Number)
        .filter((seq) => !known.has(seq));
      if (bySeq && fresh.length > 0) {
        setState("bySeq", bySeq);
        return Math.max(...fresh);
      }
    }
    return undefined;
  }

  async function show(seq: number): Promise<undefined> {
    const turn = state.bySeq[seq];
    if (!turn) return;
    const ticket = generations.next("show");
    setState("shown", { seq, turn, detail: null, error: "" });
    const answer = await api.call("GET /api/attest/certificates/:job_id", {
      params: { job_id: turn.job_id },
    });
    if (!generations.isCurrent("show", ticket)) return;
    if (answer.ok) setState("shown", "detail", answer.data);
    else setState("shown", "error", `The certificate could not load: ${answer.error.message}`);
  }

  function dispatch(action: CertificateAction): Promise<number | undefined> {
    switch (action.type) {
      case "load":
        return load(action.sessionId);
      case "follow":
        return follow(action.sessionId);
      case "show":
        return show(action.seq);
      case "close":
        generations.next("show");
        setState("shown", null);
        return Promise.resolve(undefined);
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

export type CertificateController = ReturnType<typeof createCertificateController>;
