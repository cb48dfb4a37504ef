import { describe, expect, it } from "vitest";
import type { CellBackend } from "../../src/cells/index.js";
import { bystanderHealthy } from "./cell-shell.js";
import { ESCAPE_ATTEMPTS } from "./escape-attempts.js";
import { describeSnapshots, type EscapeScene, type HostSnapshot, snapshotHost } from "./escape-scene.js";
import type { SuiteContext } from "./suite-conformance.js";

/**
 * The escape half of the shared suite. Every attempt must show its probe ran (its positive control detected
 * the leak where the leak is possible), then be contained, and leave the bystander able to fork, allocate and
 * write. The process backend has no isolation: the attempts that leak there must be seen to leak, and the ones
 * that would harm the host are not made at all (said loudly, never silently).
 */
export function defineEscapes(
  context: SuiteContext & { scene: EscapeScene; backend: () => CellBackend },
): void {
  const { entry, liveInmate, scene } = context;
  const unisolated = entry.name === "process";
  describe("escape suite", () => {
    for (const attempt of ESCAPE_ATTEMPTS) {
      if (unisolated && attempt.harmsUnisolatedHost) {
        console.warn(`[process cell] not attempting "${attempt.name}": the process backend has no isolation`);
        it.skip(`${attempt.name} (process backend: unisolated, not attempted on the host)`, () => {});
        continue;
      }
      it(attempt.name, async () => {
        await liveInmate();
        const watch = attempt.exhausts ? watchHost() : undefined;
        const result = await attempt.run(scene);
        const figures = watch ? watch.stop() : "";
        const unenforceable =
          attempt.name.includes("memory than the cell") && scene.caps.cellMemoryMiB === undefined;
        console.info(
          `[${entry.name} cell] ${attempt.name}: ${result.contained ? "contained" : "NOT contained"} — ${result.evidence}; control: ${result.control}${figures ? `; ${figures}` : ""}`,
        );
        expect(result.controlDetected, `the probe did not show it ran: ${result.control}`).toBe(true);
        if (unisolated && attempt.leaksWithoutIsolation) {
          // Honest reporting: the process backend must be seen to leak, and must say it is unisolated.
          expect(context.backend().isolated).toBe(false);
          expect(result.contained, "the process backend leaks here, and the suite must see it").toBe(false);
        } else if (unenforceable) {
          console.warn(
            `[${entry.name} cell] a cell's total memory is not bounded on this host (no root, no cgroup)`,
          );
        } else {
          expect(result.contained, result.evidence).toBe(true);
        }
        const bystander = await bystanderHealthy(scene.bystander());
        expect(bystander.ok, `the bystander cell can fork, allocate and write: ${bystander.detail}`).toBe(
          true,
        );
      }, 300_000);
    }
  });
}

/** Samples the host every 200 ms while an exhaustion attempt runs: before, after, and the worst in between. */
function watchHost(): { stop(): string } {
  const before = snapshotHost();
  const worst: HostSnapshot = { ...before };
  const timer = setInterval(() => {
    const now = snapshotHost();
    worst.memAvailableMiB = Math.min(worst.memAvailableMiB, now.memAvailableMiB);
    worst.processes = Math.max(worst.processes, now.processes);
  }, 200);
  return {
    stop() {
      clearInterval(timer);
      return describeSnapshots(before, snapshotHost(), worst);
    },
  };
}
