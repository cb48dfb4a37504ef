import { defineGroup } from "../command-spec.js";
import {
  evolutionGovernance,
  evolutionPromote,
  evolutionReview,
  evolutionRollback,
} from "./evolution-governance.js";
import { evolutionOpenclawImport, evolutionReport } from "./evolution-openclaw.js";
import { evolutionIngest, evolutionInspect } from "./evolution-store.js";

export const evolutionCommand = defineGroup({
  name: "evolution",
  summary:
    "Appleseed-compatible evolution state: evolution ingest|inspect|openclaw-import|report|governance|review|promote|rollback",
  subcommands: [
    evolutionIngest,
    evolutionInspect,
    evolutionOpenclawImport,
    evolutionReport,
    evolutionGovernance,
    evolutionReview,
    evolutionPromote,
    evolutionRollback,
  ],
});
