import type { AuditSink } from "./secret-store.js";

/** One request the egress proxy is about to send with a secret in it. */
export interface SecretUse {
  userId: string;
  cellId: string;
  secretName: string;
  host: string;
  method: string;
  /** The request's path; its query string is dropped before it is recorded (it may carry anything). */
  path: string;
  /** The skill whose declaration bound the secret; absent for a binding the user made. */
  skill?: string;
}

export type SecretUseVerdict = { ok: true } | { ok: false; reason: "rate_limited"; retryAfterMs: number };

const MINUTE_MS = 60_000;

/**
 * At most N uses of each of a user's secrets per minute (a sliding minute), and an audit record of every use and
 * every refusal. A cell that loops on an API burns its own allowance, not the account behind the secret.
 */
export class SecretUseLimiter {
  /** user\0secret → times of the uses within the last minute, oldest first. */
  private readonly uses = new Map<string, number[]>();
  private readonly now: () => number;

  constructor(private readonly options: { usesPerMinute: number; audit: AuditSink; now?: () => number }) {
    this.now = options.now ?? Date.now;
  }

  /** Counts the use and audits it (`secret.used`), or refuses it (`secret.rate_limited`) with when to retry. */
  admit(use: SecretUse): SecretUseVerdict {
    const now = this.now();
    const key = `${use.userId}\0${use.secretName}`;
    const recent = (this.uses.get(key) ?? []).filter((t) => t > now - MINUTE_MS);
    const detail = {
      secretName: use.secretName,
      cellId: use.cellId,
      host: use.host,
      method: use.method,
      path: use.path.split("?")[0] ?? "",
      ...(use.skill ? { skill: use.skill } : {}),
    };
    if (recent.length >= this.options.usesPerMinute) {
      this.uses.set(key, recent);
      const retryAfterMs = (recent[0] ?? now) + MINUTE_MS - now;
      this.options.audit({
        userId: use.userId,
        actor: "egress",
        action: "secret.rate_limited",
        detail: { ...detail, usesPerMinute: this.options.usesPerMinute },
      });
      return { ok: false, reason: "rate_limited", retryAfterMs };
    }
    recent.push(now);
    this.uses.set(key, recent);
    this.options.audit({ userId: use.userId, actor: "egress", action: "secret.used", detail });
    return { ok: true };
  }
}
