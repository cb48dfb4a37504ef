import { describe, expect, it } from "vitest";
import { ValidationError } from "../../core/index.js";
import { checkJobsToml, editJobsToml } from "./cron-file.js";

const job = (id: string, schedule = "0 7 * * *") => ({
  id,
  schedule,
  timezone: "UTC",
  prompt: `Run ${id}.`,
  enabled: true,
});

const FILE = `# Jobs of this brain.

[[jobs]]
id = "morning"       # the daily brief
schedule = "0 7 * * *"
prompt = "Brief me."

# Weekly review, keep it short.
[[jobs]]
id = "weekly"
schedule = "0 18 * * 5"
prompt = "Review the week."
`;

describe("editing cron/jobs.toml", () => {
  it("adds a job after what is there, keeping the comments", () => {
    const next = editJobsToml(FILE, { add: job("evening", "0 19 * * *") });
    expect(next.startsWith(FILE.trimEnd())).toBe(true);
    expect(checkJobsToml(next).map((j) => j.id)).toEqual(["morning", "weekly", "evening"]);
  });

  it("replaces one job's table in place and leaves the other job and every comment as written", () => {
    const next = editJobsToml(FILE, { replace: "morning", with: { ...job("morning"), enabled: false } });
    expect(next).toContain("# Jobs of this brain.");
    expect(next).toContain('# Weekly review, keep it short.\n[[jobs]]\nid = "weekly"');
    expect(next.indexOf('id = "morning"')).toBeLessThan(next.indexOf('id = "weekly"'));
    const jobs = checkJobsToml(next);
    expect(jobs.find((j) => j.id === "morning")).toMatchObject({ enabled: false, prompt: "Run morning." });
    expect(jobs.find((j) => j.id === "weekly")).toMatchObject({
      schedule: "0 18 * * 5",
      prompt: "Review the week.",
    });
  });

  it("removes one job and keeps the comment that belongs to the next", () => {
    const next = editJobsToml(FILE, { remove: "morning" });
    expect(checkJobsToml(next).map((j) => j.id)).toEqual(["weekly"]);
    expect(next).toContain("# Weekly review, keep it short.");
    expect(next).not.toContain("daily brief");
  });

  it("rewrites a file whose jobs are an inline array from its parsed jobs", () => {
    const inline = 'jobs = [{ id = "a", schedule = "0 7 * * *", prompt = "p" }]\n';
    expect(checkJobsToml(editJobsToml(inline, { remove: "a" }))).toEqual([]);
  });

  it("refuses a duplicate id (409), an unknown id (404) and a broken file, losing nothing", () => {
    expect(() => editJobsToml(FILE, { add: job("weekly") })).toThrow(/already exists/);
    expect(() => editJobsToml(FILE, { remove: "nope" })).toThrow(/nope/);
    expect(() => editJobsToml("[[jobs]]\nid = 3\n", { add: job("x") })).toThrow(ValidationError);
  });

  it("names the line and the rule of a schedule croner refuses", () => {
    let caught: unknown;
    try {
      editJobsToml(FILE, { replace: "weekly", with: job("weekly", "0 25 * * *") });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).issues).toEqual([
      {
        path: "cron/jobs.toml line 11 (jobs[1].schedule)",
        message: expect.stringMatching(/hour: 25/),
        code: "config_invalid",
      },
    ]);
  });

  it("checks hand-written text by the contract: a wrong type is named with its line", () => {
    expect(() =>
      checkJobsToml('[[jobs]]\nid = "x"\nschedule = "0 7 * * *"\nprompt = "p"\nenabled = "yes"\n'),
    ).toThrow(/cron\/jobs\.toml line 5 \(jobs\[0\]\.enabled\): must be true or false/);
  });
});
