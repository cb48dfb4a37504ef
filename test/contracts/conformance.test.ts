import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allContracts, checkText, toJsonSchema } from "../../src/contracts/index.js";
import { fixtureKinds, loadFixtureSet } from "./fixtures.js";

const name = (file: string) => file.slice(file.lastIndexOf("/") + 1);

function eventsOf(value: unknown): unknown {
  return typeof value === "object" && value !== null && "events" in value ? value.events : value;
}

/** Every key path of a JSON value (`events.1.priority`), to show that parsing dropped none. */
function keysOf(value: unknown, at = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => keysOf(v, `${at}${i}.`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [`${at}${k}`, ...keysOf(v, `${at}${k}.`)]);
}

describe("contract fixtures", () => {
  it("every fixture folder names a known contract", () => {
    const kinds = new Set(allContracts.map((c) => c.kind));
    expect(fixtureKinds().filter((k) => !kinds.has(k))).toEqual([]);
  });

  describe.each(allContracts.map((c) => [c.kind, c] as const))("%s", (_kind, contract) => {
    const set = loadFixtureSet(contract.kind);

    it("has valid and invalid fixtures", () => {
      expect(set.valid.length).toBeGreaterThan(0);
      expect(set.invalid.length).toBeGreaterThan(0);
    });

    it.each(set.valid.map((f) => [name(f), f]))("accepts %s", (_n, file) => {
      const result = checkText(contract, readFileSync(file, "utf8"));
      expect(result.ok ? [] : result.issues).toEqual([]);
      // A key no seed names is accepted and reported as a warning at its path; other files draw none.
      const expected = set.warnings.get(file);
      const paths = result.warnings.map((w) => w.path);
      if (expected === undefined) expect(paths).toEqual([]);
      else expect(paths).toContain(expected);
    });

    it.each(set.valid.map((f) => [name(f), f]))("keeps every key of %s in the parsed value", (_n, file) => {
      const text = readFileSync(file, "utf8");
      const result = checkText(contract, text);
      if (!result.ok || contract.format !== "json") return;
      const input: unknown = JSON.parse(text);
      // The ledger batch's bare-array form parses to { events: [...] }; compare the events themselves.
      const parsed =
        Array.isArray(input) && !Array.isArray(result.value) ? eventsOf(result.value) : result.value;
      expect(keysOf(parsed)).toEqual(expect.arrayContaining(keysOf(input)));
    });

    it.each(set.invalid.map((f) => [name(f.file), f] as const))("rejects %s at its path", (_n, fixture) => {
      const result = checkText(contract, readFileSync(fixture.file, "utf8"));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issues.map((i) => i.path)).toContain(fixture.expectPath);
    });

    it("exports a JSON Schema", () => {
      const schema = toJsonSchema(contract);
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    });
  });
});
