import { describe, expect, it } from "vitest";
import { ConfigError, InvalidInputError, jsonPath, ValidationError } from "./errors.js";
import { newId, nowIso, ulidTime } from "./ids.js";

describe("errors", () => {
  it("builds JSON paths with indexes and quoted odd keys", () => {
    expect(jsonPath([])).toBe("$");
    expect(jsonPath(["events", 2, "score"])).toBe("$.events[2].score");
    expect(jsonPath(["metadata", "trace-id"])).toBe('$.metadata["trace-id"]');
  });

  it("carries the field path, rule and cause", () => {
    const cause = new Error("root cause");
    const error = new InvalidInputError("$.run_id", "must not contain whitespace", { cause });
    expect(error.message).toBe("$.run_id: must not contain whitespace");
    expect(error.cause).toBe(cause);
    expect(error.name).toBe("InvalidInputError");
  });

  it("lists every issue of a failed validation", () => {
    const error = new ValidationError("dispatch", [
      { path: "$.run_id", message: "required", code: "invalid_type" },
      { path: "$.repo", message: "must match owner/repo", code: "invalid_format" },
    ]);
    expect(error.message).toBe("dispatch: 2 problems\n  $.run_id: required\n  $.repo: must match owner/repo");
  });

  it("formats config problems as file:line: key: rule", () => {
    const error = new ConfigError("a.toml", [
      { key: "server.port", rule: "too big", line: 3 },
      { key: "x", rule: "y" },
    ]);
    expect(error.message).toBe("a.toml:3: server.port: too big\na.toml: x: y");
  });
});

describe("ids", () => {
  it("makes strictly increasing ULIDs that carry their time", () => {
    const before = Date.now();
    const ids = Array.from({ length: 1000 }, () => newId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(1000);
    // An id carries the time it was made, or a later one when an id made earlier in this process carried a later
    // time (a clock set back, or a test's fake clock): never an earlier one.
    expect(ulidTime(ids[0] ?? "")).toBeGreaterThanOrEqual(before);
    expect(ulidTime(ids.at(-1) ?? "")).toBeGreaterThanOrEqual(ulidTime(ids[0] ?? ""));
  });

  it("prints times as ISO-8601 UTC", () => {
    expect(nowIso()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});
