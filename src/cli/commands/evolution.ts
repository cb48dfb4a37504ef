import { defineGroup } from "../command-spec.js";
import { evolutionIngest, evolutionInspect } from "./evolution-store.js";

export const evolutionCommand = defineGroup({
  name: "evolution",
  summary: "Appleseed-compatible evolution state: evolution ingest|inspect",
  subcommands: [evolutionIngest, evolutionInspect],
});
