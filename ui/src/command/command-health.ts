import type { LedgerEvent } from "../api/ledger-follow.js";

export interface DegradedService {
  service: string;
  reason: string;
  since: string;
}

/**
 * What the ledger says of command's own watchers: the duty officer's last tick, what is down, and the sentinel's
 * last act. A sentinel records nothing while the duty officer is healthy; it writes only when it finds it dead or
 * ineffective (a CRITICAL escalation), restarts it (RECOVERY_STARTED) and sees it tick again (RECOVERY_COMPLETED).
 */
export interface CommandHealth {
  lastTickAt: string | null;
  degraded: DegradedService[];
  sentinel: { what: string; at: string } | null;
}

/** The event types the health panel reads, in the ledger's query form. */
export const HEALTH_EVENT_TYPES =
  "PATROL_TICK,SERVICE_DEGRADED,SERVICE_RECOVERED,ESCALATION_RAISED,RECOVERY_STARTED,RECOVERY_COMPLETED";

const SENTINEL_ACTS: Record<string, string> = {
  ESCALATION_RAISED: "raised",
  RECOVERY_STARTED: "restarting the duty officer",
  RECOVERY_COMPLETED: "the duty officer patrols again",
};

const text = (v: unknown) => (typeof v === "string" ? v : "");

/** Folds events, oldest first: a service is degraded from its SERVICE_DEGRADED until a SERVICE_RECOVERED. */
export function healthOf(events: readonly LedgerEvent[]): CommandHealth {
  const health: CommandHealth = { lastTickAt: null, degraded: [], sentinel: null };
  const down = new Map<string, DegradedService>();
  for (const event of events) {
    const p = (event.payload ?? {}) as Record<string, unknown>;
    const at = event.ts;
    if (event.type === "PATROL_TICK") health.lastTickAt = at;
    const service = text(p.service) || "unnamed service";
    if (event.type === "SERVICE_DEGRADED")
      down.set(service, { service, reason: text(p.reason) || "failing", since: at });
    if (event.type === "SERVICE_RECOVERED") down.delete(service);
    const act = SENTINEL_ACTS[event.type];
    if (act && p.subject === "duty_officer") {
      const why = event.type === "ESCALATION_RAISED" ? `${text(p.severity)} ${text(p.reason)}` : act;
      health.sentinel = { what: why, at };
    }
  }
  health.degraded = [...down.values()];
  return health;
}

/** "12 s ago", "3 min ago", "2 h ago": how stale the last tick is, against now. */
export function ageOf(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
}
