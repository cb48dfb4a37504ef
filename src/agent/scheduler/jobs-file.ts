import { readFileSync } from "node:fs";
import { Cron } from "croner";
import { type CronJob, type CronJobs, cronJobsSchema } from "../../contracts/index.js";
import { ConfigError, findKeyLine, parseTomlConfig } from "../../core/index.js";

/**
 * Reads `cron/jobs.toml`: the contract checks the shape, then croner parses every schedule, because value ranges
 * (minute 61, month 13) are only known to the parser that will run it. A missing file means no jobs.
 */
export function loadJobsFile(file: string): CronJobs {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { jobs: [] };
    throw new ConfigError(file, [{ key: "(file)", rule: `cannot read: ${(error as Error).message}` }], {
      cause: error,
    });
  }
  return parseJobsFile(text, file);
}

/**
 * Checks the text of a jobs.toml (the warden does before it writes one): the contract, then croner on every
 * schedule. Throws a ConfigError naming the line, key and rule of each problem.
 */
export function parseJobsFile(text: string, file: string): CronJobs {
  const parsed = parseTomlConfig(text, cronJobsSchema, file);
  const problems: Array<{ key: string; rule: string; line?: number }> = [];
  parsed.jobs.forEach((job, i) => {
    try {
      cronFor(job);
    } catch (error) {
      const key = `jobs[${i}].schedule`;
      const line = findKeyLine(text, key);
      problems.push({ key, rule: (error as Error).message, ...(line === undefined ? {} : { line }) });
    }
  });
  if (problems.length > 0) throw new ConfigError(file, problems);
  return parsed;
}

/** A paused croner instance for computing run times only; the scheduler keeps its own timers and clock. */
export function cronFor(job: Pick<CronJob, "schedule" | "timezone">): Cron {
  return new Cron(job.schedule, { timezone: job.timezone, paused: true });
}

/** The first run strictly after `after`, or undefined when the schedule has no more runs. */
export function nextRunAfter(job: Pick<CronJob, "schedule" | "timezone">, after: Date): Date | undefined {
  return cronFor(job).nextRun(after) ?? undefined;
}
