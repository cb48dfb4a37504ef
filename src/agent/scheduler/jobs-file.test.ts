import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadJobsFile, nextRunAfter } from "./jobs-file.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ironclaw-jobs-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("jobs.toml", () => {
  it("a missing file means no jobs", () => {
    expect(loadJobsFile(join(dir, "jobs.toml"))).toEqual({ jobs: [] });
  });

  it("schedule values croner refuses are reported with file, line and key", () => {
    const file = join(dir, "jobs.toml");
    writeFileSync(file, '[[jobs]]\nid = "a"\nprompt = "x"\nschedule = "0 25 * * *"\n');
    expect(() => loadJobsFile(file)).toThrow(/jobs\.toml:4: jobs\[0\]\.schedule: .*hour/);
  });

  it("next runs follow the job's time zone across daylight saving", () => {
    const job = { schedule: "0 7 * * *", timezone: "Europe/Berlin" };
    expect(nextRunAfter(job, new Date("2025-03-29T12:00:00Z"))?.toISOString()).toBe(
      "2025-03-30T05:00:00.000Z",
    );
    expect(nextRunAfter(job, new Date("2025-03-28T12:00:00Z"))?.toISOString()).toBe(
      "2025-03-29T06:00:00.000Z",
    );
  });
});
