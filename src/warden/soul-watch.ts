import type { CellHandle } from "../cells/index.js";
import type { Logger } from "../core/index.js";
import { evaluateSoulChange, type SoulGuardConfig, summariseDecision } from "./soul-guard.js";
import type { SoulChange, SoulChangeSource, SoulStore } from "./soul-store.js";
import type { WardenCells } from "./warden-cells.js";

const SOUL = "soul.md";

/** What an edit of soul.md through the warden (API, UI) came to. */
export type SoulWriteOutcome = { applied: true } | { applied: false; change: SoulChange };

/**
 * The soul guard at work (seed 003 §11.3): the warden knows the approved soul.md of every user and compares
 * the brain's copy with it when a cell starts, after every turn and job, and before writing an edit of its
 * own. A change the rule accepts becomes the new baseline; one it holds halts the user's cell and waits for a
 * human. Once a change is decided, the brain is made to match the decision before anything else runs.
 */
export class SoulWatch {
  constructor(
    private readonly store: SoulStore,
    private readonly config: SoulGuardConfig,
    private readonly cells: WardenCells,
    private readonly logger: Logger,
  ) {}

  /** Why the user's agent may not run now, or undefined. Applies decided changes first. */
  async gate(userId: string): Promise<string | undefined> {
    const halted = this.halted(userId);
    if (halted) return halted;
    const decided = this.store.unappliedDecisions(userId);
    if (decided.length === 0) return undefined;
    const { cell } = await this.cells.get(userId);
    const baseline = this.store.baseline(userId);
    if (baseline) await writeSoul(cell, baseline.content);
    for (const change of decided) this.store.markApplied(change.id);
    return undefined;
  }

  halted(userId: string): string | undefined {
    const pending = this.store.pending(userId);
    const first = pending[0];
    if (!first) return undefined;
    return (
      `this agent is halted: a change to its soul.md waits for a human's approval (${first.reasons[0] ?? "held by the soul guard"}). ` +
      `Approve or reject it with \`ironclaw soul pending --user ${userId}\` or in the UI.`
    );
  }

  /** Compares the brain's soul.md with the baseline; holds (and halts the cell) when the rule says so. */
  async scan(userId: string, cell: CellHandle, source: SoulChangeSource): Promise<"ok" | "held"> {
    if (!this.config.enabled) return "ok";
    const current = await readSoul(cell);
    const baseline = this.store.baseline(userId);
    if (!baseline) {
      // The first look at a brain: what is there now is what its owner wrote (or the starter file).
      if (current !== null) this.store.setBaseline(userId, current, "first-seen");
      return "ok";
    }
    if (current === baseline.content) return "ok";
    const decision = evaluateSoulChange(baseline.content, current, this.config);
    if (decision.verdict === "accept") {
      this.store.setBaseline(userId, current ?? "", `soul-guard:${source}`);
      return "ok";
    }
    this.store.hold(userId, { before: baseline.content, after: current, reasons: decision.reasons, source });
    this.logger.warn(
      { user: userId, decision: summariseDecision(decision) },
      "soul.md change held; halting the cell",
    );
    await this.cells.stop(userId);
    return "held";
  }

  /** An edit of soul.md through the warden: written when the rule accepts it, held (not written) otherwise. */
  async write(
    userId: string,
    cell: CellHandle,
    content: string,
    source: SoulChangeSource,
  ): Promise<SoulWriteOutcome> {
    const baseline = this.store.baseline(userId)?.content ?? (await readSoul(cell)) ?? "";
    const decision = this.config.enabled
      ? evaluateSoulChange(baseline, content, this.config)
      : { verdict: "accept" as const, reasons: [] };
    if (decision.verdict === "accept") {
      await writeSoul(cell, content);
      this.store.setBaseline(userId, content, `soul-guard:${source}`);
      return { applied: true };
    }
    const change = this.store.hold(userId, {
      before: baseline,
      after: content,
      reasons: decision.reasons,
      source,
    });
    await this.cells.stop(userId);
    return { applied: false, change };
  }
}

async function readSoul(cell: CellHandle): Promise<string | null> {
  const reply = await cell.call({ type: "FileOpRequest", op: "read", path: SOUL }, { timeoutMs: 30_000 });
  if (reply.type !== "FileOpResult") throw new Error(`reading soul.md: the cell answered ${reply.type}`);
  if (reply.error?.code === "not_found") return null;
  if (reply.error) throw new Error(`reading soul.md: ${reply.error.message}`);
  return reply.content ?? "";
}

async function writeSoul(cell: CellHandle, content: string): Promise<void> {
  const reply = await cell.call(
    { type: "FileOpRequest", op: "write", path: SOUL, content },
    { timeoutMs: 30_000 },
  );
  if (reply.type !== "FileOpResult" || reply.error)
    throw new Error(`writing soul.md: ${reply.type === "FileOpResult" ? reply.error?.message : reply.type}`);
}
