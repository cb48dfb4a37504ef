import { hostname } from "node:os";
import { type Clock, systemClock } from "../../agent/index.js";
import type { Logger } from "../../core/index.js";
import type { EventStore } from "../../ledger/index.js";
import type { JobQueue } from "../queue/job-queue.js";
import type { TheaterRegistry } from "../vault/theaters.js";
import { ActiveOrders } from "./active-orders.js";
import { DutyOfficer } from "./duty-officer.js";
import { Observer } from "./observer.js";
import { DEFAULT_THRESHOLDS, type OversightThresholds, type ServiceProbe } from "./oversight-options.js";
import { diskProbe, ledgerProbe, queueProbe } from "./probes.js";
import { Sentinel } from "./sentinel.js";

/** How command watches itself; every field has a default. */
export interface OversightOptions {
  /** The duty officer's period ([command] patrol_seconds); 0 or absent: it ticks only when asked (POST /patrol). */
  patrolMs?: number;
  /**
   * The sentinel's period ([command] audit_seconds); 0 or absent: it audits only when asked (POST /audit). The
   * sentinel here never starts a timer: timed audits run in a process of their own (`ironclaw sentinel`), so that
   * whatever stops this process's duty officer does not stop its watchdog too.
   */
  auditMs?: number;
  thresholds?: Partial<OversightThresholds>;
  /** Besides the ledger, the queue and the disk, which are always probed: the host's (model provider, cells). */
  probes?: readonly ServiceProbe[];
  /** The least free space under IRONCLAW_HOME before the disk counts as failing (default 256 MiB). */
  minFreeDiskBytes?: number;
  clock?: Clock;
}

export interface Oversight {
  observer: Observer;
  dutyOfficer: DutyOfficer;
  /** Audits on request, and restarts this process's duty officer when it finds it dead or ineffective. */
  sentinel: Sentinel;
}

export const DEFAULT_MIN_FREE_DISK_BYTES = 256 * 1024 * 1024;

/** The observer and the duty officer over command's ledger, queue and theaters; the duty officer's timer started. */
export function openOversight(
  parts: {
    home: string;
    store: EventStore;
    queue: JobQueue;
    theaters: TheaterRegistry;
    garrisonId?: string;
    theaterWorktreePath(theaterId: string, orderId: string): string;
    logger?: Logger;
  },
  options: OversightOptions = {},
): Oversight {
  const clock = options.clock ?? systemClock;
  const context = {
    clock,
    garrisonId: parts.garrisonId ?? "local",
    thresholds: { ...DEFAULT_THRESHOLDS, ...options.thresholds },
  };
  const orders = new ActiveOrders(parts.store);
  const observer = new Observer({ ...context, store: parts.store, theaters: parts.theaters, orders });
  const dutyOfficer = new DutyOfficer({
    ...context,
    store: parts.store,
    queue: parts.queue,
    observer,
    orders,
    probes: [
      ledgerProbe(parts.store),
      queueProbe(parts.queue),
      diskProbe(parts.home, options.minFreeDiskBytes ?? DEFAULT_MIN_FREE_DISK_BYTES),
      ...(options.probes ?? []),
    ],
    theaterWorktreePath: parts.theaterWorktreePath,
    id: `${hostname()}-${process.pid}`,
    ...(parts.logger ? { logger: parts.logger } : {}),
  });
  dutyOfficer.start(options.patrolMs ?? 0);
  const sentinel = new Sentinel({
    clock,
    store: parts.store,
    orders,
    garrisonId: context.garrisonId,
    patrolMs: options.patrolMs ?? 0,
    stallAfterMs: context.thresholds.stallAfterMs,
    dutyOfficerId: dutyOfficer.id,
    restartDutyOfficer: () => dutyOfficer.restart(),
    ...(parts.logger ? { logger: parts.logger } : {}),
  });
  return { observer, dutyOfficer, sentinel };
}
