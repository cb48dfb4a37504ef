import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export const EVOLUTION_FIXTURES = new URL("../fixtures/evolution/", import.meta.url).pathname;

/** The seed's example payloads: one envelope, the batch form, a list. */
export const SEED_PAYLOADS = ["seed_envelope.json", "sample_batch.json", "envelope_list.json"] as const;

export function fixtureBytes(name: string): Buffer {
  return readFileSync(join(EVOLUTION_FIXTURES, name));
}

/** Every file under a state directory with its exact bytes (hex), to compare a directory before and after. */
export function snapshotState(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    if (!existsSync(at)) return;
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path).toString("hex");
    }
  };
  walk(dir);
  return out;
}

/** The lines of a JSONL file, decoded. */
export function jsonLines(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
