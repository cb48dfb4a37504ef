import { join } from "node:path";
import type Database from "better-sqlite3";
import type { z } from "zod";
import type { SettingsArgs, settingsProposalSchema } from "../../contracts/index.js";
import { ConflictError, Emitter, InvalidInputError, NotFoundError, newId } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import type { AuditRecordInput } from "../audit-store.js";
import type { BudgetAdminDeps } from "../budget/index.js";
import { HOST_CONFIG_FILE } from "../host-config.js";
import type { HostVariables } from "./host-variables.js";
import { type SettingsProposal, SettingsProposals } from "./settings-proposals.js";
import {
  type BrainFiles,
  budgetTarget,
  HOST_TARGET,
  hostFileTarget,
  parseTarget,
  profileTarget,
  type SettingsTarget,
  takesEffect,
  targetLabel,
} from "./settings-targets.js";

export type SettingsProposalView = z.output<typeof settingsProposalSchema>;

/** A person acting on a proposal, and where from (`ui`, `api`, `telegram:family`). */
export interface SettingsActor {
  userId: string;
  admin: boolean;
  via: string;
}

export interface SettingsDeskOptions {
  home: string;
  db: Database.Database;
  isAdmin: (userId: string) => boolean;
  /**
   * The warden's own environment (the process's and IRONCLAW_HOME/ironclawd.env), without the form's variables:
   * a variable it sets counts as set, and the form does not take it (this one wins at start).
   */
  variables: HostVariables;
  env: NodeJS.ProcessEnv;
  /** Whether a user exists: a profile or a budget is proposed for a user by name. */
  userExists: (userId: string) => boolean;
  /** Users' brains, where their agent profiles are; without it, profiles cannot be proposed for. */
  brains?: BrainFiles;
  /** The budget store and what sets caps; without it, caps cannot be proposed. */
  budget?: BudgetAdminDeps;
  audit: (entry: AuditRecordInput) => void;
  /** The UI's settings screen, where the person confirms and pastes secrets (a link in messages). */
  screenUrl: () => string;
  now?: () => Date;
  /** How long a proposal waits for its person: 24 hours. */
  ttlMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** What `propose` takes: the tool's arguments, the target defaulting to ironclawd.toml. */
export type ProposeArgs = Omit<SettingsArgs["propose"], "target"> & { target?: string };

/**
 * Configuration by conversation (seed 003 §16.5). An admin's agent proposes a change to ironclawd.toml, to any
 * user's agent profile, or to any user's spend caps; the desk checks it, stores it with the target as it was, and
 * changes nothing more. The person who proposed it confirms it (UI, API or their paired chat), and only then is
 * the target written, provided it is still as the change was drafted against; an applied change is reverted in
 * one step on the same condition. Every step is audited with who took it, and every answer says when the change
 * takes effect (ironclawd.toml at the warden's next start, a profile at the next turn, a cap at once).
 */
export class SettingsDesk {
  private readonly proposals: SettingsProposals;
  /** Steps queued or running (see list). */
  private steps = 0;
  private readonly now: () => Date;
  private readonly ttlMs: number;
  private readonly file: string;
  /** Steps run one at a time: a confirmation's check and write are not interleaved with another's. */
  private queue: Promise<unknown> = Promise.resolve();
  /** A new proposal, for the proposer's paired chats. */
  readonly proposed = new Emitter<[SettingsProposalView]>(() => undefined);

  constructor(private readonly options: SettingsDeskOptions) {
    this.proposals = new SettingsProposals(options.db);
    this.now = options.now ?? (() => new Date());
    this.ttlMs = options.ttlMs ?? DAY_MS;
    this.file = join(options.home, HOST_CONFIG_FILE);
  }

  /** Checks and stores a proposal; refused (InvalidInputError naming the key) when the change cannot be made. */
  propose(userId: string, args: ProposeArgs): Promise<SettingsProposalView> {
    return this.serially(async () => {
      if (!this.options.isAdmin(userId))
        throw new HttpError(
          "forbidden",
          `only an admin's agent may propose changes to the warden's settings; ${userId} is not an admin`,
        );
      const targetName = args.target ?? HOST_TARGET;
      const target = await this.target(targetName);
      const base = await target.read();
      const draft = target.draft(base, args.changes);
      const at = this.now();
      const proposal = this.proposals.add({
        id: `cfg_${newId()}`,
        userId,
        target: targetName,
        summary: args.summary,
        changes: args.changes,
        baseText: base,
        newText: draft.text,
        diff: draft.diff,
        secrets: draft.secrets,
        createdAt: at.toISOString(),
        expiresAt: new Date(at.getTime() + this.ttlMs).toISOString(),
      });
      this.options.audit({
        userId,
        actor: `cell:${userId}`,
        action: "config.proposed",
        detail: {
          proposal: proposal.id,
          target: targetName,
          file: targetLabel(parseTarget(targetName)),
          keys: args.changes.map((c) => c.path),
        },
      });
      const view = this.view(proposal);
      this.proposed.emit(view);
      return view;
    });
  }

  list(): SettingsProposalView[] {
    // Not while a step runs: a confirm waiting on a user's cell has checked its proposal pending and must find it
    // so when it records the outcome (each step expires what is due before it looks, in its turn).
    if (this.steps === 0) this.proposals.expire(this.now().toISOString());
    return this.proposals.list().map((p) => this.view(p));
  }

  /** Writes the proposed text: only by its proposer, while pending, with every secret set and the target unchanged. */
  confirm(id: string, who: SettingsActor): Promise<SettingsProposalView> {
    return this.serially(async () => {
      const proposal = this.pending(id, who, "confirm");
      const missing = proposal.secrets.filter((name) => !this.variableSet(name));
      if (missing.length > 0)
        throw new ConflictError(
          `${missing.join(", ")} ${missing.length === 1 ? "has" : "have"} no value yet: paste ${missing.length === 1 ? "it" : "them"} ` +
            `into the form at ${this.options.screenUrl()} first; nothing was written`,
        );
      const target = await this.target(proposal.target);
      if ((await target.read()) !== proposal.baseText)
        throw new ConflictError(
          `${this.label(proposal)} changed since proposal ${id} was made; nothing was written. Ask for a new proposal.`,
        );
      await target.write(proposal.newText, this.why(proposal, who, "applied"));
      return this.finish(proposal, "pending", "applied", who, "config.applied");
    });
  }

  reject(id: string, who: SettingsActor): Promise<SettingsProposalView> {
    return this.serially(async () => {
      const proposal = this.pending(id, who, "reject");
      return this.finish(proposal, "pending", "rejected", who, "config.rejected");
    });
  }

  /** Restores the target as it was before an applied proposal, if nothing changed it since; any admin may. */
  revert(id: string, who: SettingsActor): Promise<SettingsProposalView> {
    return this.serially(async () => {
      const proposal = this.find(id);
      if (!who.admin)
        throw new HttpError("forbidden", "only an admin may revert a change to the warden's settings");
      if (proposal.status !== "applied")
        throw new ConflictError(
          `proposal ${id} is ${proposal.status}, not applied: there is nothing to revert`,
        );
      const target = await this.target(proposal.target);
      if ((await target.read()) !== proposal.newText)
        throw new ConflictError(
          `${this.label(proposal)} changed since proposal ${id} was applied; nothing was restored. Change it by hand or revert the later change first.`,
        );
      await target.write(proposal.baseText, this.why(proposal, who, "reverted"));
      return this.finish(proposal, "applied", "reverted", who, "config.reverted");
    });
  }

  /** Stores the value of a variable a proposal names; the value is never returned nor audited. */
  setVariable(name: string, value: string, who: SettingsActor): void {
    if (!who.admin) throw new HttpError("forbidden", "only an admin may set the warden's variables");
    // Only what a proposal asks for: the form is for a change's secrets, not for the warden's environment at large.
    const asked = this.proposals
      .list(1000)
      .some((p) => (p.status === "pending" || p.status === "applied") && p.secrets.includes(name));
    if (!asked)
      throw new InvalidInputError(
        "name",
        "must be a variable a pending or applied proposal names for a secret (GET /api/settings/proposals lists them)",
      );
    // The warden's own environment (and ironclawd.env) wins over the form at start: a value pasted here would not.
    if (this.options.env[name])
      throw new ConflictError(
        `${name} is set in the warden's own environment or IRONCLAW_HOME/ironclawd.env, which wins over this form: change it there`,
      );
    this.options.variables.set(name, value);
    this.options.audit({
      userId: who.userId,
      actor: `user:${who.userId}`,
      action: "config.variable_set",
      detail: { name, via: who.via },
    });
  }

  /** The UI's settings screen, where proposals are confirmed and secrets pasted. */
  screenUrl(): string {
    return this.options.screenUrl();
  }

  variableSet(name: string): boolean {
    return Boolean(this.options.env[name]) || this.options.variables.has(name);
  }

  view(p: SettingsProposal): SettingsProposalView {
    return {
      id: p.id,
      status: p.status,
      summary: p.summary,
      target: p.target,
      file: this.label(p),
      changes: p.changes,
      diff: p.diff,
      takes_effect: takesEffect(parseTarget(p.target)),
      secrets: p.secrets.map((name) => ({ name, set: this.variableSet(name) })),
      proposed_by: p.userId,
      created_at: p.createdAt,
      expires_at: p.expiresAt,
      ...(p.decidedBy === undefined ? {} : { decided_by: p.decidedBy }),
      ...(p.decidedAt === undefined ? {} : { decided_at: p.decidedAt }),
      ...(p.revertedBy === undefined ? {} : { reverted_by: p.revertedBy }),
      ...(p.revertedAt === undefined ? {} : { reverted_at: p.revertedAt }),
    };
  }

  private find(id: string): SettingsProposal {
    this.proposals.expire(this.now().toISOString());
    const proposal = this.proposals.get(id);
    if (!proposal) throw new NotFoundError("proposal", id);
    return proposal;
  }

  private pending(id: string, who: SettingsActor, verb: string): SettingsProposal {
    const proposal = this.find(id);
    if (proposal.userId !== who.userId || !who.admin)
      throw new HttpError(
        "forbidden",
        `only ${proposal.userId}, whose agent proposed it, may ${verb} proposal ${id}`,
      );
    if (proposal.status !== "pending")
      throw new ConflictError(`proposal ${id} is ${proposal.status}, not pending`);
    return proposal;
  }

  private finish(
    proposal: SettingsProposal,
    from: SettingsProposal["status"],
    to: SettingsProposal["status"],
    who: SettingsActor,
    action: string,
  ): SettingsProposalView {
    const by = `user:${who.userId}`;
    if (!this.proposals.decide(proposal.id, from, to, by, this.now().toISOString()))
      throw new ConflictError(`proposal ${proposal.id} was decided meanwhile`);
    this.options.audit({
      userId: proposal.userId,
      actor: by,
      action,
      detail: {
        proposal: proposal.id,
        target: proposal.target,
        file: this.label(proposal),
        keys: proposal.changes.map((c) => c.path),
        via: who.via,
        ...(to === "applied" || to === "reverted"
          ? { takes_effect: takesEffect(parseTarget(proposal.target)) }
          : {}),
      },
    });
    const updated = this.proposals.get(proposal.id);
    if (!updated) throw new NotFoundError("proposal", proposal.id);
    return this.view(updated);
  }

  private label(p: SettingsProposal): string {
    return targetLabel(parseTarget(p.target));
  }

  private why(p: SettingsProposal, who: SettingsActor, done: "applied" | "reverted") {
    return {
      proposal: p.id,
      by: `user:${who.userId}`,
      cause: `settings proposal ${p.id} ${done}: ${p.summary}`,
    };
  }

  /** The target a proposal names; refused, naming `target`, for an unknown user or one this warden cannot change. */
  private async target(name: string): Promise<SettingsTarget> {
    const parsed = parseTarget(name);
    if (parsed.kind === "host") return hostFileTarget(this.file);
    if (!this.options.userExists(parsed.user))
      throw new InvalidInputError("target", `there is no user ${parsed.user} on this warden`);
    if (parsed.kind === "profile") {
      if (!this.options.brains)
        throw new InvalidInputError("target", "this warden cannot change agent profiles");
      return profileTarget(this.options.brains, parsed);
    }
    if (!this.options.budget) throw new InvalidInputError("target", "this warden cannot change spend caps");
    return budgetTarget(this.options.budget, parsed);
  }

  private serially<T>(step: () => Promise<T>): Promise<T> {
    this.steps++;
    const run = this.queue.then(step, step).finally(() => this.steps--);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
