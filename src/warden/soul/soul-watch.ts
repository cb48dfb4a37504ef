import type { CellHandle } from "../../cells/index.js";
import type { ModelRequest } from "../../contracts/index.js";
import { IronclawError, type Logger } from "../../core/index.js";
import type { WardenCells } from "../warden-cells.js";
import { evaluatePromptChange, type SoulGuardConfig, summariseDecision } from "./soul-guard.js";
import type { SoulChange, SoulChangeSource, SoulStore } from "./soul-store.js";

/** instructions/*.md: the files of that folder itself, as prompt assembly lists them (not its subfolders). */
const INSTRUCTION_FILE = /^instructions\/[^/]+\.md$/;
/** Where a person reviews held changes in the web UI. */
export const SOUL_SCREEN = "/ui/#/soul";

/** Prompt files every brain has, whatever its profiles name: guarded even before a first scan saw them. */
export function isPromptPath(path: string): boolean {
  return path === "soul.md" || path === "identity.md" || INSTRUCTION_FILE.test(path);
}

/** The cell could not show the guard its prompt files; turns are refused until it can. */
export class SoulScanError extends IronclawError {
  override readonly name = "SoulScanError";
  constructor(message: string, cause?: unknown) {
    super("unavailable", `the soul guard could not check the agent's prompt files: ${message}`, { cause });
  }
}

interface PromptFileNow {
  path: string;
  content: string | null;
}

/**
 * The soul guard at work (seed 003 §11.3) over every file that enters the system prompt: soul.md,
 * identity.md, instructions/*.md and the persona files the brain's profiles name. The warden keeps the version
 * of each that a person last approved (or first saw) and compares the brain's files with it before and after
 * every turn, after every job and when a cell starts. An accepted change stands but does not move the
 * baseline, so small steps add up to a change that is held. A held change halts the user's cell until a person
 * decides; then the brain is made to match the decision before anything else runs. A person's own edit
 * through the API or UI is theirs: it is written, becomes the baseline and is audited.
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
    for (const path of new Set(decided.map((c) => c.path))) {
      // No baseline: the rejected change created the file, which therefore goes.
      await putFile(cell, path, this.store.baseline(userId, path)?.content ?? null);
    }
    for (const change of decided) this.store.markApplied(change.id);
    return undefined;
  }

  /** The halted chat's sentence: which file, why, and where a person decides. */
  halted(userId: string): string | undefined {
    const pending = this.store.pending(userId);
    const first = pending[0];
    if (!first) return undefined;
    const more =
      pending.length > 1
        ? ` (and ${pending.length - 1} more held change${pending.length > 2 ? "s" : ""})`
        : "";
    return (
      `This agent is halted: a change to ${first.path} waits for a person's approval, because it ` +
      `${first.reasons[0] ?? "was held by the soul guard"}${more}. Review it on the Soul guard screen (${SOUL_SCREEN}).`
    );
  }

  /**
   * Compares the brain's prompt files with their baselines; holds every change the rule holds, and halts the
   * cell when there is one. Throws a SoulScanError when the cell cannot show its files.
   */
  async scan(userId: string, cell: CellHandle, source: SoulChangeSource): Promise<"ok" | "held"> {
    if (!this.config.enabled) return "ok";
    const files = await readPromptFiles(cell);
    // A development handler (shell, echo) builds no prompt from the brain: there is nothing to judge.
    if (files === undefined) return "ok";
    const present = files.filter((f): f is { path: string; content: string } => f.content !== null);
    if (this.store.recordFirstLook(userId, present)) return "ok";
    const baselines = new Map(this.store.baselines(userId).map((b) => [b.path, b.content]));
    // An instructions file with a baseline that the cell no longer lists was deleted or renamed away.
    const listed = new Set(files.map((f) => f.path));
    const gone = [...baselines.keys()]
      .filter((path) => INSTRUCTION_FILE.test(path) && !listed.has(path))
      .map((path) => ({ path, content: null }));
    const held: SoulChange[] = [];
    for (const file of [...files, ...gone]) {
      const before = baselines.get(file.path) ?? null;
      if (file.content === before) continue;
      const decision = evaluatePromptChange(file.path, before, file.content, this.config);
      if (decision.verdict === "accept") continue;
      held.push(
        this.store.hold(userId, {
          path: file.path,
          before,
          after: file.content,
          reasons: decision.reasons,
          source,
        }),
      );
      this.logger.warn({ user: userId, decision: summariseDecision(decision) }, "prompt file change held");
    }
    if (held.length === 0) return "ok";
    this.logger.warn({ user: userId, held: held.map((c) => c.path) }, "halting the cell");
    await this.cells.stop(userId);
    return "held";
  }

  /**
   * Before a model call leaves the warden. A chat turn's prompt files were judged before the turn began; a cron
   * job's turn (which the cell's scheduler may start on its own, in the middle of another turn that wrote a
   * prompt file) was not, so its calls are judged here: a hold, or files the cell cannot show, refuse the call.
   */
  async checkModelCall(userId: string, cell: CellHandle, request: ModelRequest): Promise<string | undefined> {
    const halted = this.halted(userId);
    if (halted || request.job === undefined) return halted;
    try {
      if ((await this.scan(userId, cell, "agent")) === "held")
        return this.halted(userId) ?? "this agent is halted by the soul guard";
    } catch (error) {
      if (error instanceof SoulScanError) return error.message;
      throw error;
    }
    return undefined;
  }

  /**
   * A person's edit or deletion (null) of a brain file through the warden (API, UI): for a prompt file it becomes
   * the approved version, recorded before the write so that a scan running meanwhile does not hold the person's
   * own edit. Returns what undoes the record if the write then fails. The audit keeps what the guard would have
   * said, so a surprising edit can be traced to who made it.
   */
  recordPersonEdit(userId: string, path: string, content: string | null, by: string): () => void {
    const previous = this.store.baseline(userId, path);
    if (!isPromptPath(path) && !previous) return () => {};
    const decision = evaluatePromptChange(path, previous?.content ?? null, content, this.config);
    this.store.setBaseline(userId, path, content, by);
    this.logger.info(
      { user: userId, by, decision: summariseDecision(decision) },
      "prompt file edited by a person",
    );
    return () => {
      if (previous) this.store.setBaseline(userId, path, previous.content, previous.approvedBy);
      else this.store.forgetBaseline(userId, path);
    };
  }
}

/** The cell's prompt files now; undefined when its handler is not the agent and so answers no queries. */
async function readPromptFiles(cell: CellHandle): Promise<PromptFileNow[] | undefined> {
  const reply = await cell
    .call({ type: "QueryRequest", query: { kind: "prompt_files" } }, { timeoutMs: 30_000 })
    .catch((error: Error) => {
      throw new SoulScanError(error.message, error);
    });
  if (reply.type !== "QueryResult") throw new SoulScanError(`the cell answered ${reply.type}`);
  if (reply.error?.code === "unsupported") return undefined;
  if (reply.error) throw new SoulScanError(reply.error.message);
  if (reply.answer?.kind !== "prompt_files")
    throw new SoulScanError(`the cell answered ${reply.answer?.kind ?? "nothing"}`);
  return reply.answer.files;
}

/** Writes a prompt file, or deletes it when its approved version is "absent". */
async function putFile(cell: CellHandle, path: string, content: string | null): Promise<void> {
  const reply = await cell.call(
    content === null
      ? { type: "FileOpRequest", op: "delete", path }
      : { type: "FileOpRequest", op: "write", path, content },
    { timeoutMs: 30_000 },
  );
  if (reply.type !== "FileOpResult") throw new Error(`writing ${path}: the cell answered ${reply.type}`);
  if (reply.error && !(content === null && reply.error.code === "not_found"))
    throw new Error(`writing ${path}: ${reply.error.message}`);
}
