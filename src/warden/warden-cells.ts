import { join } from "node:path";
import {
  type BrainSeed,
  type CellBackend,
  type CellEvent,
  type CellHandle,
  CellManager,
  type CellStartSpec,
  describeCellExit,
  hasSavedVm,
  sweepSavedVms,
  userCellSpec,
  WarmPool,
} from "../cells/index.js";
import type {
  HelloEgress,
  IronclawdConfig,
  JobStatus,
  MemoryForgotten,
  ModelRequest,
  Ready,
} from "../contracts/index.js";
import { Emitter, type Logger } from "../core/index.js";
import type { ModelBudget } from "./budget/index.js";
import { type AuditEntry, type ModelCallRecord, serveCellRequests } from "./cell-requests.js";
import { type CommandRequestHandler, commandNotEnabled } from "./command-requests.js";
import type { HostProviders } from "./host-providers.js";
import type { IntegrationDesk } from "./integrations/index.js";

/** Why a cell's model call may not leave, or undefined. */
export type ModelCallGuard = (
  userId: string,
  cell: CellHandle,
  request: ModelRequest,
) => Promise<string | undefined>;

export interface WardenCellsOptions {
  backend: CellBackend;
  usersDir: string;
  config: IronclawdConfig;
  providers: HostProviders;
  /** The host uid a user's cell runs as (their own, so one cell can never read another's brain). */
  cellUidOf: (userId: string) => number | undefined;
  audit: (entry: AuditEntry) => void;
  logger: Logger;
  onModelCall?: (record: ModelCallRecord) => void;
  /** Spend caps and usage records for every model call of every cell. */
  budget?: ModelBudget;
  /** Tests and the explicit dev flag only: a handler other than the agent. */
  spec?: Partial<CellStartSpec>;
  /** How long a Hello may wait for Ready (a microVM under TCG indexes a brain slowly). */
  readyTimeoutMs?: number;
  /** Each cell's HTTPS proxy (egress/cell-proxies.ts); without it tools in a cell have no network. */
  egress?: CellEgressSource;
  /** The integrations (GitHub…) run with each user's credentials; each Hello names those the user has. */
  integrations?: IntegrationDesk;
}

/** What greets a cell with its HTTPS proxy: started with the cell, then the same for every later Hello. */
export interface CellEgressSource {
  start(userId: string, cell: CellHandle): Promise<HelloEgress | undefined>;
  hello(cell: CellHandle): HelloEgress | undefined;
}

export interface LiveCell {
  cell: CellHandle;
  ready: Ready;
}

/**
 * The warden's cells: one per user, started on first use, kept warm, stopped when idle, restarted after a
 * crash (CellManager). Each cell, when it starts, is wired to the model and egress proxies and greeted with
 * Hello; it is handed out only once its Ready has come back.
 */
export class WardenCells {
  readonly manager: CellManager;
  /** Blank cells waiting for users ([cells] pool_size); empty where the backend cannot start them blank. */
  readonly pool: WarmPool;
  private readonly live = new WeakMap<CellHandle, Promise<Ready>>();
  private readonly jobStatuses = new Emitter<[userId: string, status: JobStatus]>();
  private readonly forgets = new Emitter<[userId: string, notice: MemoryForgotten]>();
  private modelCallGuard?: ModelCallGuard;
  private commands?: CommandRequestHandler;
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly options: WardenCellsOptions) {
    const idleMinutes = options.config.cells.idle_stop_minutes;
    const spec: Partial<CellStartSpec> = {
      handler: "agent",
      brainSeed: brainSeedOf(options.config),
      ...options.spec,
    };
    this.pool = new WarmPool({
      backend: options.backend,
      usersDir: options.usersDir,
      size: 0,
      blank: options.backend.startBlank ? options.config.cells.pool_size : 0,
      // What a blank cell runs cannot change at hand-out, so it starts as every user's cell would.
      spec,
      refillOnTake: false,
      onBlankError: (error) =>
        options.logger.warn({ error: error.message }, "a blank pool cell could not start"),
    });
    this.manager = new CellManager({
      backend: options.backend,
      usersDir: options.usersDir,
      idleStopMs: idleMinutes * 60_000,
      warmPool: this.pool,
      spec,
      // The same owner `ironclaw cell start` gives the user's cell (see userCellSpec).
      specFor: (userId) => userCellSpec(userId, options.cellUidOf(userId), options.backend),
    });
    this.manager.onEvent((event) => this.logEvent(event));
    // Saves of suspended cells whose users did not come back: now, then hourly.
    const sweep = () =>
      void sweepSavedVms(options.usersDir, options.config.cells.suspended_keep_days * 86_400_000).then(
        (users) => {
          if (users.length > 0)
            options.logger.info({ users }, "deleted suspended cells' saves past their keep");
        },
        (error: Error) => options.logger.warn({ error: error.message }, "suspended cells' saves not swept"),
      );
    sweep();
    this.sweep = setInterval(sweep, 3_600_000);
    this.sweep.unref();
  }

  /** The user's cell, started and greeted if need be. Throws when the cell cannot start (the message says why). */
  async get(userId: string): Promise<LiveCell> {
    const cell = await this.manager.get(userId);
    let ready = this.live.get(cell);
    if (!ready) {
      ready = this.greet(userId, cell);
      this.live.set(cell, ready);
      // The pool refills once this cell is Ready (or failed): a blank cell's start, a few hundred ms of CPU,
      // would otherwise slow the very start the user is waiting for.
      void ready.then(
        () => this.pool.prewarmBlank(),
        () => this.pool.prewarmBlank(),
      );
    }
    return { cell, ready: await ready };
  }

  /** The agent profiles the user's brain defines now (asked again each time: the owner may edit them). */
  async describe(userId: string): Promise<Ready> {
    const { cell } = await this.get(userId);
    const reply = await cell.call(this.hello(userId, this.options.egress?.hello(cell)), {
      timeoutMs: 30_000,
    });
    if (reply.type !== "Ready")
      throw new Error(reply.type === "Error" ? reply.message : `the cell answered ${reply.type}`);
    return reply;
  }

  /** Starts blank cells until the pool is full; resolves once they are ready (or could not start). */
  async prewarm(): Promise<void> {
    await this.pool.prewarmBlank();
  }

  running(userId: string): CellHandle | undefined {
    return this.manager.cell(userId);
  }

  /**
   * A cell that is not running but was suspended: its user's next message resumes it. (A save left from
   * before the host changed backends is not: that cell boots, and the sweep deletes the save.)
   */
  async suspended(userId: string): Promise<boolean> {
    if (this.running(userId) || this.options.backend.suspends !== true) return false;
    return hasSavedVm(join(this.options.usersDir, userId));
  }

  async stop(userId: string): Promise<void> {
    await this.manager.stop(userId);
  }

  /**
   * An admin's way out of a crash loop (or of a stuck cell): stops the user's cell if one runs, forgets its
   * crashes and starts it afresh, greeted. Throws when it cannot start; the message says why.
   */
  async restart(userId: string): Promise<LiveCell> {
    await this.manager.stop(userId);
    this.manager.release(userId);
    this.options.logger.info({ user: userId }, "a cell was restarted by an admin");
    return this.get(userId);
  }

  async stopAll(): Promise<void> {
    clearInterval(this.sweep);
    await this.manager.stopAll();
  }

  /** Job reports nobody asked for: the cell's own schedule (seed 003 §8.2 step 4). */
  onJobStatus(listener: (userId: string, status: JobStatus) => void): () => void {
    return this.jobStatuses.on(listener);
  }

  /** A user's brain forgot something: copies the warden keeps must lose it too. */
  onForgotten(listener: (userId: string, notice: MemoryForgotten) => void): () => void {
    return this.forgets.on(listener);
  }

  /** Asked before every model call a cell makes (the soul guard); a reason refuses the call. */
  guardModelCalls(guard: ModelCallGuard): void {
    this.modelCallGuard = guard;
  }

  /** Where the command tool's requests go from now on (createCommandDesk); until then, command is off. */
  serveCommands(handler: CommandRequestHandler): void {
    this.commands = handler;
  }

  /** What a cell is told when it is greeted: the providers offered, and the integrations its user has. */
  private hello(userId: string, egress: HelloEgress | undefined) {
    const integrations = this.options.integrations?.configured(userId) ?? [];
    return {
      type: "Hello" as const,
      providers: this.options.providers.names(),
      ...(integrations.length > 0 ? { integrations } : {}),
      ...(egress ? { egress } : {}),
    };
  }

  private async greet(userId: string, cell: CellHandle): Promise<Ready> {
    const { integrations } = this.options;
    const detach = serveCellRequests(cell, {
      userId,
      providers: this.options.providers,
      egress: this.options.config.egress,
      audit: this.options.audit,
      logger: this.options.logger.child({ user: userId }),
      ...(this.options.onModelCall ? { onModelCall: this.options.onModelCall } : {}),
      ...(this.options.budget ? { budget: this.options.budget } : {}),
      beforeModelCall: async (request) => this.modelCallGuard?.(userId, cell, request),
      // Asked at each request, so a cell started before command was hosted reaches it too.
      command: async (request) =>
        this.commands
          ? this.commands(userId, request)
          : commandNotEnabled(this.options.audit)(userId, request),
      ...(integrations
        ? { integrations: (request, signal) => integrations.serve(userId, request, signal) }
        : {}),
    });
    const off = cell.onEvent((message) => {
      if (message.type === "JobStatus" && message.reply_to === undefined) {
        this.jobStatuses.emit(userId, message);
      }
      if (message.type === "MemoryForgotten") {
        this.forgets.emit(userId, message);
      }
      if (message.type === "Error" && message.fatal) {
        this.options.logger.error({ user: userId, reason: message.message }, "the cell cannot go on");
      }
    });
    // A frame the host refused (a field the contract does not allow, such as a URL or an env var in a
    // ModelRequest) is a cell trying something: kept in the audit trail, not only answered.
    const offRefusals = cell.peer.onRefusal((refusal) =>
      this.options.audit({
        userId,
        actor: `cell:${userId}`,
        action: "protocol.refused",
        detail: { code: refusal.code, reason: refusal.message.slice(0, 500) },
      }),
    );
    void cell.exited.then(() => {
      detach();
      off();
      offRefusals();
    });
    const egress = await this.options.egress?.start(userId, cell);
    const reply = await cell
      .call(this.hello(userId, egress), {
        timeoutMs: this.options.readyTimeoutMs ?? 120_000,
      })
      .catch(async (error: Error) => {
        // A cell that died on its way up (its brain's index, its config) says more than the lost channel.
        const exit = await Promise.race([cell.exited, delay(3_000)]);
        // A cell still running without having answered is stopped, as one that answered Hello with an Error
        // is: its failed greeting would otherwise be what every later request of its user meets.
        if (!exit) void this.manager.stop(userId);
        throw new Error(
          exit
            ? `the cell stopped before it was ready: ${describeCellExit(exit)}`
            : `the cell did not get ready: ${error.message}`,
        );
      });
    if (reply.type !== "Ready") {
      const why = reply.type === "Error" ? reply.message : `it answered ${reply.type}`;
      void this.manager.stop(userId);
      throw new Error(`the cell could not start its agent: ${why}`);
    }
    return reply;
  }

  private logEvent(event: CellEvent): void {
    const log = this.options.logger;
    if (event.kind === "crashed")
      log.warn({ user: event.userId, exit: event.exit, why: describeCellExit(event.exit) }, "a cell crashed");
    else if (event.kind === "gave_up")
      log.error(
        {
          user: event.userId,
          error: event.error,
          ...(event.exit ? { exit: event.exit } : {}),
          ...(event.retryAt ? { retry_at: event.retryAt } : {}),
        },
        `a cell keeps crashing; not restarting it${event.retryAt ? ` before ${event.retryAt}` : ""} (POST /api/admin/cells/${event.userId}/restart starts it now)`,
      );
    else if (event.kind === "stopped" && event.suspended)
      log.info(
        { user: event.userId, event: "suspended" },
        "an idle cell was saved to disk; its next use resumes it",
      );
    else if (event.kind === "started" && event.resumed)
      log.info({ user: event.userId, event: "resumed" }, "a cell resumed where it was suspended");
    else log.info({ user: event.userId, event: event.kind }, "cell");
  }
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}

/**
 * A new user's brain starts with the host's `[new_brains]` provider, model and embedder, so a host with a local
 * model server works without anybody editing a brain.
 */
function brainSeedOf(config: IronclawdConfig): BrainSeed {
  const { provider, model, embedding_provider, embedding_model } = config.new_brains;
  return {
    ...(provider ? { provider } : {}),
    ...(model ? { model } : {}),
    ...(embedding_provider && embedding_model
      ? { embedding: { provider: embedding_provider, model: embedding_model } }
      : {}),
  };
}
