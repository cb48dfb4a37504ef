export { ActiveOrders } from "./active-orders.js";
export { DutyOfficer, type DutyOfficerOptions } from "./duty-officer.js";
export { Observer, type ObserverOptions, type ObserverPatrol } from "./observer.js";
export type { Finding, PatrolCheck } from "./order-findings.js";
export {
  DEFAULT_MIN_FREE_DISK_BYTES,
  type Oversight,
  type OversightOptions,
  openOversight,
} from "./oversight.js";
export {
  DEFAULT_THRESHOLDS,
  type OversightThresholds,
  type PatrolRequestOptions,
  type ServiceProbe,
} from "./oversight-options.js";
export { PatrolTicks, type SeenTick } from "./patrol-ticks.js";
export { diskProbe, ledgerProbe, queueProbe, reachableProbe } from "./probes.js";
export { Sentinel, type SentinelOptions } from "./sentinel.js";
export { DEAD_AFTER_PERIODS, INEFFECTIVE_WINDOW } from "./sentinel-verdict.js";
