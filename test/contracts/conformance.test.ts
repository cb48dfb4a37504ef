import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allContracts, checkText, toJsonSchema } from "../../src/contracts/index.js";
import { fixtureKinds, loadFixtureSet } from "./fixtures.js";

const name = (file: string) => file.slice(file.lastIndexOf("/") + 1);

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
