import type Database from "better-sqlite3";
import type { SecretsOverview } from "../../contracts/index.js";
import type { Logger } from "../../core/index.js";
import {
  type CellEgressPlan,
  candidateBindings,
  type ResolvedBinding,
  type SkillSecretSource,
  type UnresolvedSecret,
} from "./cell-egress-plan.js";
import { PlaceholderBook } from "./placeholder-book.js";
import { SecretBindings } from "./secret-bindings.js";
import { SecretKeyring } from "./secret-key.js";
import { type AuditSink, SecretStore, SecretUnreadableError } from "./secret-store.js";
import { SecretUseLimiter } from "./secret-use-limiter.js";

export interface WardenSecretsOptions {
  db: Database.Database;
  /** IRONCLAW_HOME: where secrets.key lives. */
  home: string;
  audit: AuditSink;
  logger: Logger;
  /** `[egress] secret_uses_per_minute`. */
  usesPerMinute: number;
  /** Approved skills' declarations and required variables (the SkillStore); without it, user bindings only. */
  skills?: SkillSecretSource;
  now?: () => Date;
}

/**
 * Users' secrets as the warden serves them: the store, the bindings, one placeholder book for this process and
 * the per-secret limiter. A cell gets placeholders; only the egress proxy gets values, through `cellEgressPlan`.
 */
export class WardenSecrets {
  readonly store: SecretStore;
  readonly bindings: SecretBindings;
  readonly placeholders: PlaceholderBook;
  readonly limiter: SecretUseLimiter;
  private readonly skills: SkillSecretSource | undefined;
  private readonly logger: Logger;
  private readonly usesPerMinute: number;

  constructor(options: WardenSecretsOptions) {
    const keyring = new SecretKeyring(options.home);
    const stores = { audit: options.audit, ...(options.now ? { now: options.now } : {}) };
    this.store = new SecretStore(options.db, keyring, stores);
    this.bindings = new SecretBindings(options.db, stores);
    this.placeholders = new PlaceholderBook(() => keyring.placeholderKey());
    const now = options.now;
    this.limiter = new SecretUseLimiter({
      usesPerMinute: options.usesPerMinute,
      audit: options.audit,
      ...(now ? { now: () => now().getTime() } : {}),
    });
    this.skills = options.skills;
    this.logger = options.logger;
    this.usesPerMinute = options.usesPerMinute;
  }

  /**
   * What a starting cell gets: a placeholder per secret a binding or an approved skill names (as the variable of
   * that name), and for the proxy every binding with its placeholder and value. A secret that is not set gives
   * neither, and the reason is logged (never a value) and returned.
   */
  cellEgressPlan(userId: string, cellId: string): CellEgressPlan {
    const { candidates, invalid } = candidateBindings(
      this.bindings.list(userId),
      this.skills?.egressDeclarations(userId) ?? [],
    );
    const unresolved: UnresolvedSecret[] = [...invalid];
    const values = new Map<string, string | undefined>();
    const secretValue = (secretName: string, context: { skill?: string; host?: string }) => {
      if (!values.has(secretName)) values.set(secretName, this.readValue(userId, secretName));
      const value = values.get(secretName);
      if (value === undefined)
        unresolved.push({
          secretName,
          ...context,
          reason: this.store.has(userId, secretName) ? "unreadable secret" : "missing secret",
        });
      return value;
    };
    const env: Record<string, string> = {};
    const bindings: ResolvedBinding[] = [];
    for (const candidate of candidates) {
      const { skill, ...binding } = candidate;
      const secret = secretValue(binding.secretName, { ...(skill ? { skill } : {}), host: binding.host });
      if (secret === undefined) continue;
      const placeholder = this.placeholders.mint(cellId, binding.secretName);
      env[binding.secretName] = placeholder;
      bindings.push({ ...binding, port: 443, placeholder, secret, ...(skill ? { skill } : {}) });
    }
    for (const { skill, name } of this.skills?.requiredEnv?.(userId) ?? []) {
      if (env[name] !== undefined || secretValue(name, { skill }) === undefined) continue;
      env[name] = this.placeholders.mint(cellId, name);
    }
    for (const u of unresolved)
      this.logger.warn(
        { userId, cellId, secret: u.secretName, skill: u.skill, host: u.host, problem: u.problem },
        `secret not given to the cell: ${u.reason}`,
      );
    return { env, bindings, unresolved };
  }

  /**
   * The egress proxy's `rateLimit` for one cell: counts and audits each use of a secret (SecretUseLimiter) and
   * answers why a use is refused, or undefined to let it through.
   */
  rateLimitFor(
    userId: string,
    cellId: string,
  ): (use: { binding: ResolvedBinding; method: string; path: string }) => string | undefined {
    return ({ binding, method, path }) => {
      const verdict = this.limiter.admit({
        userId,
        cellId,
        secretName: binding.secretName,
        host: binding.host,
        method,
        path,
        ...(binding.skill ? { skill: binding.skill } : {}),
      });
      if (verdict.ok) return undefined;
      return (
        `secret ${binding.secretName} was used ${this.usesPerMinute} times in the last minute; ` +
        `retry in ${Math.ceil(verdict.retryAfterMs / 1000)} s`
      );
    };
  }

  /** The cell stopped: its placeholders mean nothing any more. */
  cellStopped(cellId: string): void {
    this.placeholders.forgetCell(cellId);
  }

  /** What GET /api/secrets shows: names and times, every binding with whether its secret is set, skills' needs. */
  overview(userId: string): SecretsOverview {
    const secrets = this.store.list(userId);
    const set = new Set(secrets.map((s) => s.name));
    const { candidates } = candidateBindings(
      this.bindings.list(userId),
      this.skills?.egressDeclarations(userId) ?? [],
    );
    const needs = new Map<string, Set<string>>();
    const need = (secret: string, skill: string) => {
      const skills = needs.get(secret) ?? new Set<string>();
      skills.add(skill);
      needs.set(secret, skills);
    };
    for (const c of candidates) if (c.skill) need(c.secretName, c.skill);
    for (const { skill, name } of this.skills?.requiredEnv?.(userId) ?? []) need(name, skill);
    return {
      user: userId,
      secrets: secrets.map((s) => ({ name: s.name, created_at: s.createdAt, updated_at: s.updatedAt })),
      bindings: candidates.map((c) => ({
        secret: c.secretName,
        host: c.host,
        port: 443 as const,
        header: c.header,
        format: c.format,
        ...(c.methods ? { methods: c.methods } : {}),
        ...(c.paths ? { paths: c.paths } : {}),
        skill: c.skill ?? null,
        secret_set: set.has(c.secretName),
      })),
      needs: [...needs].map(([secret, skills]) => ({
        secret,
        skills: [...skills].sort(),
        secret_set: set.has(secret),
      })),
    };
  }

  /** A value that fails to open is logged and treated as absent: one damaged row must not stop the cell. */
  private readValue(userId: string, secretName: string): string | undefined {
    try {
      return this.store.get(userId, secretName);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      this.logger.error({ userId, secret: secretName }, error.message);
      return undefined;
    }
  }
}
