import type { LedgerEventInput } from "../../contracts/index.js";
import { ConflictError, currentOwner } from "../../core/index.js";
import {
  type EventStore,
  IllegalTransitionError,
  type OrderSnapshot,
  StreamVersionConflictError,
} from "../../ledger/index.js";

/** What integration writes to the ledger about one order: its integration events, in the order's stream. */
export class IntegrationLedger {
  constructor(
    private readonly store: EventStore,
    private readonly order: OrderSnapshot,
    private readonly garrisonId: string,
  ) {}

  private event(type: LedgerEventInput["type"], payload: Record<string, unknown> = {}): LedgerEventInput {
    return {
      type,
      garrison_id: this.garrisonId,
      theater_id: this.order.theater_id,
      run_id: this.order.run_id,
      order_id: this.order.order_id,
      unit_id: null,
      payload,
    };
  }

  /**
   * INTEGRATION_STARTED, only if the order's stream is still at the version its checks read: of two integrators
   * that checked the same order, one appends and the other gets a ConflictError and does nothing. It names this
   * process, so oversight can tell an integration a crash cut off from one still under way (cut-off.ts).
   */
  async start(): Promise<void> {
    try {
      await this.store.append(this.event("INTEGRATION_STARTED", { integrator: currentOwner() }), {
        expect: [{ kind: "order", id: this.order.order_id, version: this.order.version }],
      });
    } catch (error) {
      if (error instanceof StreamVersionConflictError || error instanceof IllegalTransitionError)
        throw new ConflictError(
          `order ${this.order.order_id} changed while it was being checked (another integration started first); nothing was merged`,
          { cause: error },
        );
      throw error;
    }
  }

  /** INTEGRATION_PASSED (unless already recorded) and INTEGRATED, in one batch: both or neither. */
  async integrated(commitSha: string, alreadyPassed = false): Promise<void> {
    const passed = alreadyPassed ? [] : [this.event("INTEGRATION_PASSED")];
    await this.store.appendBatch([...passed, this.event("INTEGRATED", { commit_sha: commitSha })]);
  }

  async failed(details: Record<string, unknown> & { reason: string }): Promise<void> {
    await this.store.append(this.event("INTEGRATION_FAILED", details));
  }

  /** A merge conflict needs someone to decide how the two changes meet: it fails and is escalated at once. */
  async conflicted(paths: string[], detail: string): Promise<void> {
    const shown = paths.length > 0 ? paths.join(", ") : "(git named no path)";
    const reason = `merging the order into main conflicts in ${shown}`;
    await this.store.appendBatch([
      this.event("INTEGRATION_FAILED", { reason, stage: "merge", conflicts: paths, detail }),
      this.event("ESCALATION_RAISED", { severity: "MEDIUM", route: "co", reason }),
    ]);
  }
}
