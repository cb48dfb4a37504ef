import { attestContracts } from "./attest/index.js";
import { cellContracts } from "./cell/index.js";
import { commandContracts } from "./command/index.js";
import { dispatchContracts } from "./dispatch/index.js";
import { evolutionContracts } from "./evolution/index.js";
import type { Contract } from "./registry.js";
import { skillContracts } from "./skills/index.js";
import { skillsApiContracts } from "./warden/index.js";

/** Every contract of the five seeds, in seed order. */
export const allContracts: readonly Contract[] = [
  ...commandContracts,
  ...dispatchContracts,
  ...attestContracts,
  ...cellContracts,
  ...evolutionContracts,
  ...skillContracts,
  ...skillsApiContracts,
].sort((a, b) => a.seed.localeCompare(b.seed));

const byKind = new Map(allContracts.map((c) => [c.kind, c]));
if (byKind.size !== allContracts.length) throw new Error("two contracts share a kind");

export function findContract(kind: string): Contract | undefined {
  return byKind.get(kind);
}
