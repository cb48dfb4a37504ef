import { EvolutionStore } from "../../src/evolution/index.js";
import { loopPayload } from "./loop-payload.js";

// A writer process for the crash and concurrency tests: for each <prefix>:<from>:<to> given, ingests
// loopPayload(prefix, i) for i in [from, to) into the state directory, then exits.
const [dir, ...runs] = process.argv.slice(2);
if (!dir || runs.length === 0) throw new Error("usage: ingest-loop <state dir> <prefix>:<from>:<to>…");
const store = EvolutionStore.open(dir);
for (const run of runs) {
  const [prefix = "", from, to] = run.split(":");
  for (let i = Number(from); i < Number(to); i++) store.ingest(loopPayload(prefix, i));
}
