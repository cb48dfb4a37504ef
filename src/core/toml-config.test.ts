import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "./errors.js";
import { findKeyLine, parseTomlConfig } from "./toml-config.js";

const schema = z.strictObject({
  name: z.string(),
  server: z.strictObject({ port: z.number().int().min(1).max(65535), bind: z.string().default("127.0.0.1") }),
  jobs: z
    .array(z.strictObject({ id: z.string(), schedule: z.string().min(9, "must be a cron expression") }))
    .default([]),
});

function configError(text: string): ConfigError {
  try {
    parseTomlConfig(text, schema, "ironclawd.toml");
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("TOML config loading", () => {
  it("parses and applies defaults", () => {
    const config = parseTomlConfig('name = "home"\n[server]\nport = 8080\n', schema, "ironclawd.toml");
    expect(config).toEqual({ name: "home", server: { port: 8080, bind: "127.0.0.1" }, jobs: [] });
  });

  it("names file, line, key and rule for a value that breaks a rule", () => {
    const error = configError('name = "home"\n\n[server]\nport = 70000\n');
    expect(error.problems).toEqual([{ key: "server.port", rule: expect.stringContaining("65535"), line: 4 }]);
    expect(error.message).toMatch(/^ironclawd\.toml:4: server\.port: /);
  });

  it("locates a key inside the right array-of-tables entry", () => {
    const text =
      'name = "n"\n[server]\nport = 1\n[[jobs]]\nid = "a"\nschedule = "0 * * * *"\n[[jobs]]\nid = "b"\nschedule = "x"\n';
    const error = configError(text);
    expect(error.problems).toEqual([{ key: "jobs[1].schedule", rule: "must be a cron expression", line: 9 }]);
  });

  it("reports unknown keys and missing keys", () => {
    const error = configError('nmae = "typo"\n[server]\nport = 1\n');
    const keys = error.problems.map((p) => p.key).sort();
    expect(keys).toEqual(["(root)", "name"]);
    expect(error.message).toContain("nmae");
  });

  it("reports TOML syntax errors with their line", () => {
    const error = configError('name = "home"\n[server\nport = 1\n');
    expect(error.problems[0]).toMatchObject({ key: "(syntax)", line: 2 });
  });

  it("finds keys written with quotes and nested tables", () => {
    expect(findKeyLine('[a]\nx = 1\n[a.b]\n"y" = 2\n', "a.b.y")).toBe(4);
    expect(findKeyLine("[a]\nx = 1\n", "a.z")).toBeUndefined();
  });
});
