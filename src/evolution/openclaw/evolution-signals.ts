import type { ProjectedFeedbackRecord } from "../../contracts/index.js";
import { DEFAULT_GATE_POLICY, isNegative } from "../pipeline/index.js";

/** At or above this score a selected skill counts for itself (below the pipeline's weak score, against). */
export const REINFORCE_SCORE = 0.8;
/** Records a signal needs before it could pass the pipeline's offline gate without an operator arguing for it. */
export const MIN_EVIDENCE = DEFAULT_GATE_POLICY.min_negative_sessions;

export type SignalKind = "capability_gap" | "skill_underperformed" | "skill_reinforced";

/** What the projected feedback says evolution could act on, per target, with the records that say it. */
export interface EvolutionSignal {
  signal_kind: SignalKind;
  target: string;
  evidence_count: number;
  mean_score: number;
  statuses: string[];
  record_ids: string[];
}

/**
 * The local, deterministic reading of projected feedback (no model): a missing capability named by an
 * unsuccessful session is a capability gap; a skill selected in an unsuccessful session underperformed; one
 * selected in a success scoring at least REINFORCE_SCORE is reinforced. Signals are sorted by kind and target.
 */
export function projectEvolutionSignals(records: readonly ProjectedFeedbackRecord[]): EvolutionSignal[] {
  const groups = new Map<string, { kind: SignalKind; target: string; records: ProjectedFeedbackRecord[] }>();
  const add = (kind: SignalKind, target: string, record: ProjectedFeedbackRecord) => {
    const key = `${kind}\u0000${target}`;
    const group = groups.get(key) ?? { kind, target, records: [] };
    group.records.push(record);
    groups.set(key, group);
  };
  for (const record of records) {
    if (isNegative(record)) {
      for (const capability of record.missing_capabilities) add("capability_gap", capability, record);
      for (const skill of record.selected_skill_ids) add("skill_underperformed", skill, record);
    } else if (record.score >= REINFORCE_SCORE) {
      for (const skill of record.selected_skill_ids) add("skill_reinforced", skill, record);
    }
  }
  return [...groups.values()]
    .map(({ kind, target, records: rs }) => ({
      signal_kind: kind,
      target,
      evidence_count: rs.length,
      mean_score: Math.round((rs.reduce((sum, r) => sum + r.score, 0) / rs.length) * 1000) / 1000,
      statuses: [...new Set(rs.map((r) => r.status))],
      record_ids: rs.map((r) => r.record_id),
    }))
    .sort((a, b) =>
      a.signal_kind === b.signal_kind
        ? a.target < b.target
          ? -1
          : a.target > b.target
            ? 1
            : 0
        : a.signal_kind < b.signal_kind
          ? -1
          : 1,
    );
}
