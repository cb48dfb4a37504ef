// The payloads the evolution bench ingests: a deterministic mix of session_started and session_feedback events, as
// a runtime sends them — single envelopes, lists of envelopes and batches of a few sizes — shuffled so sizes
// interleave as they would from several runtimes at once.

/** One payload: its exact bytes, how many envelopes it carries and its size class (for per-size figures). */
export interface BenchPayload {
  bytes: Buffer;
  envelopes: number;
  size: number;
  form: "envelope" | "list" | "batch";
}

/** Envelopes per payload → how many payloads of that size; 1,000 + 9,000 + 40,000 + 50,000 = 100,000 envelopes. */
export const DEFAULT_MIX: ReadonlyArray<{ size: number; payloads: number }> = [
  { size: 1, payloads: 1000 },
  { size: 10, payloads: 900 },
  { size: 100, payloads: 400 },
  { size: 1000, payloads: 50 },
];

const header = {
  contract_name: "openclaw_appleseed.runtime_event",
  contract_version: "1.0",
  source: "openclaw",
};
const statuses = ["success", "failure", "partial", "cancelled", "unknown"] as const;

/** A small linear congruential generator: the same mix every run, with no dependency. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function event(n: number, random: () => number): Record<string, unknown> {
  const session_id = `session-${Math.floor(n / 2)}`;
  const occurred_at = new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString();
  const common = {
    schema_version: "1.1",
    event_id: `event-${n}`,
    occurred_at,
    session_id,
    task: `Fix the flaky test in module ${n % 97} and explain the cause`,
    selected_skill_ids: ["git-bisect", "vitest"].slice(0, 1 + (n % 2)),
    metadata: { runtime: "openclaw", host: `host-${n % 7}` },
  };
  // Every session starts, then gets feedback: half of all events are projected.
  if (n % 2 === 0) return { event_kind: "session_started", ...common, steps: [] };
  return {
    event_kind: "session_feedback",
    ...common,
    status: statuses[n % statuses.length],
    score: Math.round(random() * 100) / 100,
    comment: n % 3 === 0 ? "worked after the second try" : undefined,
    steps: ["read the failing test", "bisect", "patch"],
    missing_capabilities: n % 5 === 0 ? ["browser"] : [],
  };
}

/** The payloads for `mix`, shuffled by a fixed seed. `offset` numbers events so two workloads never collide. */
export function buildWorkload(mix = DEFAULT_MIX, offset = 0): BenchPayload[] {
  const random = seeded(37);
  let n = offset;
  const payloads: BenchPayload[] = [];
  for (const { size, payloads: count } of mix) {
    for (let p = 0; p < count; p++) {
      const events = Array.from({ length: size }, () => event(n++, random));
      const envelope = (e: Record<string, unknown>) => ({
        ...header,
        envelope_id: `envelope-${String(e.event_id).slice(6)}`,
        recorded_at: e.occurred_at,
        event: e,
      });
      const form = size === 1 ? "envelope" : size === 10 ? "list" : "batch";
      const value =
        form === "envelope"
          ? envelope(events[0] as Record<string, unknown>)
          : form === "list"
            ? events.map(envelope)
            : { ...header, metadata: { batch: p }, events };
      payloads.push({ bytes: Buffer.from(JSON.stringify(value), "utf8"), envelopes: size, size, form });
    }
  }
  for (let i = payloads.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [payloads[i], payloads[j]] = [payloads[j] as BenchPayload, payloads[i] as BenchPayload];
  }
  return payloads;
}

/** Envelopes in a workload. */
export function envelopeCount(payloads: readonly BenchPayload[]): number {
  return payloads.reduce((sum, p) => sum + p.envelopes, 0);
}
