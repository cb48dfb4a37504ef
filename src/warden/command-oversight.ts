import { type CellBackend, probeBwrap, probeQemuMicrovm } from "../cells/index.js";
import {
  DEFAULT_THRESHOLDS,
  type OversightOptions,
  reachableProbe,
  type ServiceProbe,
} from "../command/index.js";
import type { IronclawdConfig } from "../contracts/index.js";
import { OPENROUTER_BASE_URL } from "../providers/index.js";

/** [command] keys left out take these (the config schema says so in each key's description). */
const PATROL_SECONDS = 30;
const AUDIT_SECONDS = 60;
const STALL_SECONDS = 900;
const STALE_WORKTREE_SECONDS = 1_800;
const MIN_FREE_DISK_MB = 256;

/**
 * How the warden's command watches itself: the duty officer's period and thresholds from [command], and, beside the
 * ledger, queue and disk command probes on its own, the two dependencies only the host knows: the model provider
 * the CO plans with, and the cell backend orders run in.
 */
export function commandOversightOptions(config: IronclawdConfig, backend?: CellBackend): OversightOptions {
  const { command } = config;
  const probes: ServiceProbe[] = [];
  const provider = command.provider ?? config.new_brains.provider ?? "openrouter";
  const baseUrl =
    config.providers[provider]?.base_url ?? (provider === "openrouter" ? OPENROUTER_BASE_URL : undefined);
  if (baseUrl) probes.push(reachableProbe(`provider:${provider}`, baseUrl));
  if (backend) {
    const probe = cellBackendProbe(backend);
    if (probe) probes.push(probe);
  }
  return {
    patrolMs: (command.patrol_seconds ?? PATROL_SECONDS) * 1000,
    auditMs: (command.audit_seconds ?? AUDIT_SECONDS) * 1000,
    thresholds: {
      stallAfterMs: (command.stall_seconds ?? STALL_SECONDS) * 1000,
      staleWorktreeMs: (command.stale_worktree_seconds ?? STALE_WORKTREE_SECONDS) * 1000,
      integrationStaleMs: DEFAULT_THRESHOLDS.integrationStaleMs,
    },
    minFreeDiskBytes: (command.min_free_disk_mb ?? MIN_FREE_DISK_MB) * 1024 * 1024,
    probes,
  };
}

/** Whether the backend's sandbox can still be built here; the process backend has nothing to fail. */
function cellBackendProbe(backend: CellBackend): ServiceProbe | undefined {
  const name = `cells:${backend.name}`;
  if (backend.name === "bwrap")
    return {
      name,
      async check() {
        const probe = await probeBwrap();
        if (!probe.usable) throw new Error(probe.detail);
      },
    };
  if (backend.name === "microvm")
    return {
      name,
      async check() {
        const probe = await probeQemuMicrovm();
        if (!probe.microvm) throw new Error(probe.detail);
      },
    };
  return undefined;
}
