import { policyEventPayloadSchema, type RoutingPolicy } from "../../contracts/index.js";
import type { EventStore } from "../../ledger/index.js";

/** Every policy version the ledger holds, which one is active, and whether a person pinned it. */
export interface PolicyHistory {
  versions: Map<number, RoutingPolicy>;
  active: number | null;
  pinned: boolean;
  /** The highest version ever written: the next learned version is one more. */
  latest: number;
}

const PAGE = 1000;

/**
 * The policy's history, folded from the POLICY_UPDATED events in ledger order. A POLICY_UPDATED another writer
 * appended in another shape (seed 000 lets any service announce a version) is not ours to route by, and is
 * skipped; so is a pin or rollback to a version this ledger never learned.
 */
export async function readPolicyHistory(store: EventStore): Promise<PolicyHistory> {
  const history: PolicyHistory = { versions: new Map(), active: null, pinned: false, latest: 0 };
  let after = 0;
  for (;;) {
    const page = await store.read({ after, types: ["POLICY_UPDATED"], limit: PAGE });
    for (const event of page) {
      const parsed = policyEventPayloadSchema.safeParse(event.payload);
      if (!parsed.success) continue;
      const change = parsed.data;
      if (change.action === "learned") {
        history.versions.set(change.policy_version, change.policy);
        history.latest = Math.max(history.latest, change.policy_version);
        history.active = change.policy_version;
        continue;
      }
      if (!history.versions.has(change.policy_version)) continue;
      history.active = change.policy_version;
      if (change.action === "pinned") history.pinned = true;
      if (change.action === "unpinned") history.pinned = false;
    }
    if (page.length < PAGE) return history;
    after = page.at(-1)?.position ?? after;
  }
}

/** The active version's document, if any. */
export function activePolicy(history: PolicyHistory): RoutingPolicy | undefined {
  return history.active === null ? undefined : history.versions.get(history.active);
}
