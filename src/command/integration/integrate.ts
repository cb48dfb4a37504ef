import type { IntegrateData } from "../../contracts/index.js";
import { InvalidInputError, NotFoundError } from "../../core/index.js";
import type { EventStore, OrderSnapshot } from "../../ledger/index.js";
import { failureDetails, type Gate, gateOf, treeGate } from "./gate-outcome.js";
import type { GateOutcome, GateRunner } from "./gate-runner.js";
import { IntegrationLedger } from "./integration-ledger.js";
import { IntegrationRefusedError, refuseUnlessIntegrable } from "./integration-refusal.js";
import {
  advanceMain,
  checkoutForGate,
  findIntegratingCommit,
  isAncestor,
  MAIN_REF,
  prepareMerge,
  resolveCommit,
} from "./merge-worktree.js";
import { missingPaths, readAar, readAcceptanceCommands } from "./worktree-files.js";

export interface IntegratorOptions {
  store: EventStore;
  /** Where a theater's repository is and whose it is (the vault's TheaterRegistry). */
  theaters: { require(theaterId: string): Promise<{ repo_path: string; owner: string }> };
  gates: GateRunner;
  /** True once every order this one depends on (from the order's plan) is INTEGRATED. */
  dependenciesIntegrated(orderId: string): boolean | Promise<boolean>;
  /** Named lint/policy commands run after the order's acceptance commands; `default` adds none. */
  profiles?: Readonly<Record<string, readonly string[]>>;
  garrisonId?: string;
  /** Limit of each gate command (default 10 minutes). */
  commandTimeoutMs?: number;
  /** How often a merge is redone when main moves between the merge and its promotion (default 3). */
  maxMergeAttempts?: number;
}

export interface IntegrateInput {
  theaterId: string;
  orderId: string;
  worktreePath: string;
  gateProfile?: string;
}

/** POST /integrate's answer, plus the conflicting paths of a failed merge and whether a past merge was found. */
export type IntegrationResult = IntegrateData & { conflicts?: string[]; recovered?: boolean };

/**
 * Integration (seed 000 §3.7): validates an order's aar.json and artifacts, merges its branch onto the theater's
 * main in a scratch worktree, runs the gates over the merged tree in a cell, and only then moves main to the
 * merge. An order is merged at most once: INTEGRATION_STARTED is appended against the stream version the checks
 * read, and a main that already holds the order's branch is recorded, never merged again.
 */
export class Integrator {
  private readonly garrisonId: string;
  /** Per theater repository, the end of the line of merges waiting to be gated and promoted (see inLine). */
  private readonly lines = new Map<string, Promise<void>>();
  /** Gate cells still stopping and their scratch checkouts still going (see settled). */
  private readonly cleanups = new Set<Promise<void>>();
  constructor(private readonly options: IntegratorOptions) {
    this.garrisonId = options.garrisonId ?? "local";
  }

  async integrate(input: IntegrateInput): Promise<IntegrationResult> {
    const { orderId } = input;
    const profile = this.profileCommands(input.gateProfile ?? "default");
    const order = await this.options.store.getOrder(orderId);
    if (!order) throw new NotFoundError("order", orderId);
    if (order.theater_id !== input.theaterId)
      throw new InvalidInputError(
        "$.theater_id",
        `must be ${order.theater_id}, the theater of order ${orderId}`,
      );
    if (order.worktree_path !== null && order.worktree_path !== input.worktreePath)
      throw new InvalidInputError("$.worktree_path", `must be ${order.worktree_path}, the order's worktree`);
    refuseUnlessIntegrable(order);
    const theater = await this.options.theaters.require(order.theater_id);
    const repo = theater.repo_path;
    const branch = order.branch ?? `order_${orderId}`;
    const tip = await resolveCommit(repo, `refs/heads/${branch}`);
    if (tip === undefined) throw new IntegrationRefusedError(orderId, `its branch ${branch} does not exist`);
    const ledger = new IntegrationLedger(this.options.store, order, this.garrisonId);

    // An integration that stopped after main moved (a crash) is finished by recording the merge main holds.
    if (order.integration_state === "STARTED" || order.integration_state === "PASSED") {
      const main = await resolveCommit(repo, MAIN_REF);
      if (main === undefined || !(await isAncestor(repo, tip, main)))
        throw new IntegrationRefusedError(orderId, `its integration is already ${order.integration_state}`);
      return this.recordExisting(ledger, order, repo, tip, main, order.integration_state === "PASSED");
    }
    if (!(await this.options.dependenciesIntegrated(orderId)))
      throw new IntegrationRefusedError(orderId, "an order it depends on is not integrated yet");
    // Main as the first merge will find it, read while the order's files are checked (a main that moves after
    // is caught by the promotion's compare-and-swap, and the merge is made again).
    const firstLook = lookAtMain(repo, tip);
    firstLook.catch(() => undefined);
    const aar = readAar(input.worktreePath, orderId);
    // Work that met only part of its objective (partial) or none is not promoted, whatever the ledger says.
    if (aar.status !== "completed")
      throw new InvalidInputError("aar.json $.status", `must be completed to integrate, not ${aar.status}`);
    const [missing, acceptance] = await Promise.all([
      missingPaths(
        repo,
        tip,
        aar.artifacts.map((a) => a.path),
      ),
      readAcceptanceCommands(repo, tip, orderId),
    ]);
    const first = missing[0];
    if (first !== undefined)
      throw new InvalidInputError(
        `aar.json $.artifacts[${first}].path`,
        `${aar.artifacts[first]?.path} is not in branch ${branch}`,
      );
    const commands = [...acceptance, ...profile];
    const checked: Gate[] = [
      { name: "aar.json", passed: true },
      { name: "artifacts", passed: true, detail: `${aar.artifacts.length} in ${branch}` },
    ];

    await ledger.start();
    // Behind another merge in line, main will have moved by our turn: the look taken here would be stale.
    const look = this.lines.has(repo) ? undefined : firstLook;
    try {
      return await this.inLine(repo, () =>
        this.mergeAndGate(
          { ledger, order, repo, branch, tip, commands, owner: theater.owner, checked },
          look,
        ),
      );
    } catch (error) {
      // Not left STARTED: a later integration reads FAILED, or finds main already holding the branch.
      await ledger
        .failed({ reason: `integration stopped: ${(error as Error).message}` })
        .catch(() => undefined);
      throw error;
    }
  }

  private async mergeAndGate(
    job: {
      ledger: IntegrationLedger;
      order: OrderSnapshot;
      repo: string;
      branch: string;
      tip: string;
      commands: string[];
      owner: string;
      checked: Gate[];
    },
    firstLook: Promise<MainLook> | undefined,
  ): Promise<IntegrationResult> {
    const { ledger, order, repo, branch, tip, checked } = job;
    const orderId = order.order_id;
    const failed = async (gates: Gate[], details: { reason: string } & Record<string, unknown>) => {
      await ledger.failed(details);
      return {
        order_id: orderId,
        result: "failed" as const,
        commit_sha: null,
        gates: [...checked, ...gates],
      };
    };
    for (let attempt = 1; attempt <= (this.options.maxMergeAttempts ?? 3); attempt++) {
      const { base, holdsTip } = await ((attempt === 1 ? firstLook : undefined) ?? lookAtMain(repo, tip));
      if (base === undefined) return failed([], { reason: "the theater's repository has no main branch" });
      if (holdsTip) return this.recordExisting(ledger, order, repo, tip, base, false);
      const prepared = await prepareMerge(repo, base, tip, branch, orderId).catch((error: Error) => error);
      if (prepared instanceof Error)
        return failed([], { reason: `the merge could not be made: ${prepared.message}` });
      if (prepared.kind === "conflict") {
        await ledger.conflicted(prepared.paths, prepared.detail);
        const gate = {
          name: "merge",
          passed: false,
          detail: `conflicts in ${prepared.paths.join(", ") || "?"}`,
        };
        const result = { order_id: orderId, result: "failed" as const, commit_sha: null };
        return { ...result, gates: [...checked, gate], conflicts: prepared.paths };
      }
      // The merge commit is made while the gate runs over its tree: neither reads the other.
      const merge = prepared.commit().catch((error: Error) => error);
      let outcome: GateOutcome;
      try {
        outcome = await this.gate(job, prepared.tree);
      } catch (error) {
        await merge;
        return failed([], { reason: `the gate could not run: ${(error as Error).message}`, stage: "gate" });
      }
      const mergeCommit = await merge;
      if (mergeCommit instanceof Error)
        return failed([], { reason: `the merge could not be made: ${mergeCommit.message}` });
      const { results } = outcome;
      const gates: Gate[] = [{ name: "merge", passed: true }, ...treeGate(outcome), ...results.map(gateOf)];
      const failure = results.find((r) => r.exit !== 0 || r.timed_out);
      if (failure) return failed(gates, failureDetails(failure));
      if (results.length < job.commands.length)
        return failed(gates, {
          reason: `the gate answered for ${results.length} of ${job.commands.length} commands`,
        });
      const promoted = await advanceMain(repo, mergeCommit, base);
      if (promoted.moved) {
        await Promise.all([ledger.integrated(mergeCommit), promoted.synced]);
        return {
          order_id: orderId,
          result: "passed",
          commit_sha: mergeCommit,
          gates: [...checked, ...gates],
        };
      }
      // Main moved while the gates ran: merge again onto it, so nothing that landed meanwhile is lost.
    }
    return failed([], { reason: "main kept moving while the order was merged and gated; try again" });
  }

  /**
   * Runs the gate's commands in a cell over the merged tree, checked out for it; with no commands there is nothing
   * to check out. The checkout goes once the gate's cell has exited, off the order's path: nothing reads it again.
   */
  private async gate(
    job: { order: OrderSnapshot; repo: string; commands: string[]; owner: string },
    tree: string,
  ): Promise<GateOutcome> {
    if (job.commands.length === 0) return { results: [], skipped: [] };
    const checkout = await checkoutForGate(job.repo, tree);
    let outcome: GateOutcome;
    try {
      outcome = await this.options.gates.run({
        userId: job.owner,
        runId: job.order.run_id,
        orderId: job.order.order_id,
        treeDir: checkout.dir,
        commands: job.commands,
        commandTimeoutMs: this.options.commandTimeoutMs ?? 600_000,
      });
    } catch (error) {
      await checkout.remove();
      throw error;
    }
    this.afterward((outcome.released ?? Promise.resolve()).then(() => checkout.remove()));
    return outcome;
  }

  /**
   * Runs one theater's merges one after another. A merge is gated against the main it was made on and promoted
   * only if main has not moved since, so merges gated side by side in one theater all lose to the first one
   * promoted and are made again; several runs finishing at once used up every attempt that way and failed orders
   * whose gates had passed. In line, main moves only under another process's merge.
   */
  /** Resolves once every gate cell this integrator started has exited and its scratch checkout is removed. */
  async settled(): Promise<void> {
    while (this.cleanups.size > 0) await Promise.all([...this.cleanups]);
  }

  private afterward(work: Promise<void>): void {
    const tracked = work.catch(() => undefined).finally(() => this.cleanups.delete(tracked));
    this.cleanups.add(tracked);
  }

  private inLine<T>(repo: string, work: () => Promise<T>): Promise<T> {
    const previous = this.lines.get(repo) ?? Promise.resolve();
    const result = previous.then(work);
    const done = result.then(
      () => undefined,
      () => undefined,
    );
    this.lines.set(repo, done);
    void done.then(() => {
      if (this.lines.get(repo) === done) this.lines.delete(repo);
    });
    return result;
  }

  /** Main already holds the order's branch: record the commit that brought it in, merge nothing. */
  private async recordExisting(
    ledger: IntegrationLedger,
    order: OrderSnapshot,
    repo: string,
    tip: string,
    main: string,
    alreadyPassed: boolean,
  ): Promise<IntegrationResult> {
    const commit = await findIntegratingCommit(repo, tip, main);
    await ledger.integrated(commit, alreadyPassed);
    const gates = [{ name: "merge", passed: true, detail: `main already holds it as ${commit}` }];
    return { order_id: order.order_id, result: "passed", commit_sha: commit, gates, recovered: true };
  }

  private profileCommands(name: string): readonly string[] {
    const profiles = this.options.profiles ?? {};
    const commands = Object.hasOwn(profiles, name) ? profiles[name] : undefined;
    if (commands) return commands;
    if (name === "default") return [];
    const known = ["default", ...Object.keys(profiles).filter((p) => p !== "default")];
    throw new InvalidInputError("$.gate_profile", `must be one of ${known.join(", ")}`);
  }
}

/** Main's commit, and whether it already holds the order's tip (a merge that was made and not recorded). */
interface MainLook {
  base: string | undefined;
  holdsTip: boolean;
}

async function lookAtMain(repo: string, tip: string): Promise<MainLook> {
  const base = await resolveCommit(repo, MAIN_REF);
  return { base, holdsTip: base !== undefined && (await isAncestor(repo, tip, base)) };
}
