import type { LedgerEvent } from "../api/ledger-follow.js";

export interface DegradedService {
  service: string;
  reason: string;
  since: string;
}

/** What the ledger says of command's own watchers: the duty officer's last tick, what is down, the last alarm. */
export interface CommandHealth {
  lastTickAt: string | null;
  degraded: DegradedService[];
  /** The last CRITICAL escalation: what the sentinel raises when the duty officer is dead or ineffective. */
  lastCritical: { reason: string; at: string } | null;
}

/** The event types the health panel reads, in the ledger's query form. */
export const HEALTH_EVENT_TYPES = "PATROL_TICK,SERVICE_DEGRADED,SERVICE_RECOVERED,ESCALATION_RAISED";

const text = (v: unknown) => (typeof v === "string" ? v : "");

/** Folds events, oldest first: a service is degraded from its SERVICE_DEGRADED until a SERVICE_RECOVERED. */
export function healthOf(events: readonly LedgerEvent[]): CommandHealth {
  const health: CommandHealth = { lastTickAt: null, degraded: [], lastCritical: null };
  const down = new Map<string, DegradedService>();
  for (const event of events) {
    const p = (event.payload ?? {}) as Record<string, unknown>;
    const at = event.ts;
    if (event.type === "PATROL_TICK") health.lastTickAt = at;
    const service = text(p.service) || "unnamed service";
    if (event.type === "SERVICE_DEGRADED")
      down.set(service, { service, reason: text(p.reason) || "failing", since: at });
    if (event.type === "SERVICE_RECOVERED") down.delete(service);
    if (event.type === "ESCALATION_RAISED" && p.severity === "CRITICAL")
      health.lastCritical = { reason: text(p.reason) || "no reason given", at };
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
