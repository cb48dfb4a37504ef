import { EventIdConflictError, type EventStore } from "../../ledger/index.js";
import type { ServiceProbe } from "./oversight-options.js";

/** A probe that has not answered in this long has failed. */
const PROBE_TIMEOUT_MS = 10_000;

interface ServiceState {
  degraded: boolean;
  /** SERVICE_DEGRADED and SERVICE_RECOVERED events stored for it so far: the next one's number. */
  transitions: number;
}

/** A probe's failure, or undefined when it answered. */
async function failureOf(probe: ServiceProbe): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`), PROBE_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([
      probe.check().then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)) || "it failed",
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The health of the services the duty officer depends on, as the ledger records it: SERVICE_DEGRADED when a probe
 * starts failing, SERVICE_RECOVERED when it answers again, one event per transition. The state is read from the
 * ledger (so a restarted duty officer does not announce a failure again), and the nth transition of a service has
 * a fixed event_id, so two duty officers that see it at once store it once.
 */
export class ServiceHealth {
  private readonly states = new Map<string, ServiceState>();
  private through = 0;

  constructor(
    private readonly store: EventStore,
    private readonly garrisonId: string,
  ) {}

  /** Probes each service and records each transition; returns the services failing now and the events stored. */
  async check(
    probes: readonly ServiceProbe[],
    dryRun = false,
  ): Promise<{ failing: string[]; emitted: number }> {
    await this.catchUp();
    const failing: string[] = [];
    let emitted = 0;
    for (const probe of probes) {
      const failure = await failureOf(probe);
      if (failure !== undefined) failing.push(`${probe.name}: ${failure}`);
      const state = this.states.get(probe.name) ?? { degraded: false, transitions: 0 };
      if ((failure !== undefined) === state.degraded || dryRun) continue;
      const event = {
        event_id: `service.${probe.name}.${state.transitions + 1}`,
        garrison_id: this.garrisonId,
        theater_id: null,
        run_id: null,
        order_id: null,
        unit_id: null,
        ...(failure === undefined
          ? { type: "SERVICE_RECOVERED" as const, payload: { service: probe.name } }
          : { type: "SERVICE_DEGRADED" as const, payload: { service: probe.name, reason: failure } }),
      };
      try {
        const result = await this.store.append(event);
        if (!result.duplicate) emitted += 1;
      } catch (error) {
        // Another duty officer recorded this transition first, in its own words.
        if (!(error instanceof EventIdConflictError)) throw error;
      }
      await this.catchUp();
    }
    return { failing, emitted };
  }

  private async catchUp(): Promise<void> {
    const head = await this.store.head();
    while (this.through < head) {
      const page = await this.store.read({
        after: this.through,
        through: head,
        types: ["SERVICE_DEGRADED", "SERVICE_RECOVERED"],
        limit: 1_000,
      });
      for (const event of page) {
        const service = event.payload.service;
        if (typeof service !== "string") continue;
        const state = this.states.get(service) ?? { degraded: false, transitions: 0 };
        this.states.set(service, {
          degraded: event.type === "SERVICE_DEGRADED",
          transitions: state.transitions + 1,
        });
      }
      this.through = page.length < 1_000 ? head : (page.at(-1)?.position ?? head);
    }
  }
}
