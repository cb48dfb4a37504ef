import { CELL_BACKENDS, type CellBackendSetting } from "../../contracts/index.js";
import { runDoctor } from "./doctor.js";
import type { Prompter } from "./setup-prompter.js";

/** The checks that decide which cell backends this host can run. */
const CELL_CHECKS = new Set([
  "bubblewrap",
  "qemu",
  "kvm",
  "tcg",
  "cell limits",
  "cell start",
  "microvm start",
]);

/**
 * The cell backend: what doctor finds on this host, each missing piece with the command that fixes it, then the
 * choice (auto picks the strongest that works). A backend given by flag is taken without probing the host.
 */
export async function chooseBackend(
  p: Prompter,
  given: CellBackendSetting | undefined,
  current: CellBackendSetting | undefined,
): Promise<CellBackendSetting> {
  if (given !== undefined && !p.interactive)
    return p.choose("Cell backend", CELL_BACKENDS, given, "--backend");
  p.say("Checking what this host can run cells in…");
  const report = await runDoctor();
  for (const check of report.checks.filter((c) => CELL_CHECKS.has(c.name))) {
    p.say(
      `  [${check.status === "ok" ? "ok  " : check.status === "warn" ? "warn" : "MISS"}] ${check.name}: ${check.detail}`,
    );
    if (check.fix) p.say(`         fix: ${check.fix}`);
  }
  const auto = report.cellBackend;
  p.say(`  auto would pick: ${auto.backend ?? "nothing"} (${auto.reason})`);
  if (auto.warning) p.say(`  warning: ${auto.warning}`);
  return p.choose("Cell backend", CELL_BACKENDS, given ?? current ?? "auto", "--backend");
}
