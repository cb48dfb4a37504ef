import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const FIXTURE_ROOT = new URL("../fixtures/contracts/", import.meta.url).pathname;

export interface FixtureSet {
  kind: string;
  valid: string[];
  invalid: Array<{ file: string; expectPath: string }>;
  /** Valid files that carry a key no seed names, each with the path of that key: accepted, with a warning. */
  warnings: Map<string, string>;
}

const INDEX_FILES = new Set(["expect.json", "warnings.json"]);

/**
 * Fixtures live in `test/fixtures/contracts/<kind>/valid/*` and `…/invalid/*`; `invalid/expect.json` maps each
 * invalid file's name to the JSON path that validation must report for it, and `valid/warnings.json` maps each
 * valid file that holds an unknown key to that key's path. Every other valid file must draw no warning.
 */
export function loadFixtureSet(kind: string): FixtureSet {
  const dir = join(FIXTURE_ROOT, kind);
  const list = (sub: string) =>
    existsSync(join(dir, sub))
      ? readdirSync(join(dir, sub))
          .filter((f) => !INDEX_FILES.has(f))
          .sort()
          .map((f) => join(dir, sub, f))
      : [];
  const expectFile = join(dir, "invalid", "expect.json");
  const expect: Record<string, string> = existsSync(expectFile)
    ? JSON.parse(readFileSync(expectFile, "utf8"))
    : {};
  const invalid = list("invalid").map((file) => {
    const name = file.slice(file.lastIndexOf("/") + 1);
    const expectPath = expect[name];
    if (expectPath === undefined) throw new Error(`${kind}/invalid/${name} has no entry in expect.json`);
    return { file, expectPath };
  });
  for (const name of Object.keys(expect)) {
    if (!existsSync(join(dir, "invalid", name)))
      throw new Error(`${kind}/invalid/expect.json names missing ${name}`);
  }
  const warningsFile = join(dir, "valid", "warnings.json");
  const named: Record<string, string> = existsSync(warningsFile)
    ? JSON.parse(readFileSync(warningsFile, "utf8"))
    : {};
  const warnings = new Map<string, string>();
  for (const [name, path] of Object.entries(named)) {
    if (!existsSync(join(dir, "valid", name)))
      throw new Error(`${kind}/valid/warnings.json names missing ${name}`);
    warnings.set(join(dir, "valid", name), path);
  }
  return { kind, valid: list("valid"), invalid, warnings };
}

export function fixtureKinds(): string[] {
  return existsSync(FIXTURE_ROOT) ? readdirSync(FIXTURE_ROOT).sort() : [];
}
