import { stringify } from "smol-toml";
import { parseJobsFile } from "../../agent/index.js";
import type { CronJob } from "../../contracts/index.js";
import { ConfigError, ConflictError, NotFoundError, ValidationError } from "../../core/index.js";

export const JOBS_FILE = "cron/jobs.toml";

/**
 * Checks a jobs.toml before the warden writes it: the contract (cronJobsSchema), then croner on every
 * schedule, exactly as the cell's scheduler will load it. A problem is a 400 naming the line, key and rule.
 */
export function checkJobsToml(text: string): CronJob[] {
  try {
    return parseJobsFile(text, JOBS_FILE).jobs;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ValidationError(
      JOBS_FILE,
      error.problems.map((p) => ({
        path: `${JOBS_FILE}${p.line === undefined ? "" : ` line ${p.line}`} (${p.key})`,
        message: p.rule,
        code: "config_invalid",
      })),
      { cause: error },
    );
  }
}

// A table header line; `[[jobs]]` starts one job.
const HEADER = /^\s*\[/;
const JOB_HEADER = /^\s*\[\[\s*jobs\s*\]\]\s*(#.*)?$/;

/** One job as a `[[jobs]]` table, its keys in the order the seed lists them. */
function jobTable(job: CronJob): string {
  const { id, schedule, timezone, agent, prompt, enabled } = job;
  return stringify({ jobs: [{ id, schedule, timezone, ...(agent ? { agent } : {}), prompt, enabled }] });
}

/**
 * Where each `[[jobs]]` table sits in the text (first and last line, end exclusive). Undefined when the file
 * writes its jobs some other way (an inline array), so the caller rewrites the whole file instead.
 */
function jobBlocks(lines: string[], count: number): Array<[number, number]> | undefined {
  const starts = lines.flatMap((line, i) => (JOB_HEADER.test(line) ? [i] : []));
  if (starts.length !== count) return undefined;
  return starts.map((start) => {
    let end = start + 1;
    while (end < lines.length && !HEADER.test(lines[end] ?? "")) end++;
    // Comments and blank lines right above the next table describe that table, not this one.
    while (end > start + 1 && /^\s*(#.*)?$/.test(lines[end - 1] ?? "")) end--;
    return [start, end];
  });
}

/**
 * The new text of jobs.toml after one job is added, replaced or removed, checked as the scheduler will load
 * it. The rest of the file (other jobs, comments) stays as its owner wrote it; only the edited table changes.
 */
export function editJobsToml(
  text: string,
  edit: { add: CronJob } | { replace: string; with: CronJob } | { remove: string },
): string {
  const jobs = text.trim() === "" ? [] : checkJobsToml(text);
  if ("add" in edit) {
    if (jobs.some((j) => j.id === edit.add.id))
      throw new ConflictError(`a job with id ${edit.add.id} already exists in ${JOBS_FILE}`);
    const base = text.trimEnd();
    return checked(`${base}${base === "" ? "" : "\n\n"}${jobTable(edit.add)}`);
  }
  const id = "remove" in edit ? edit.remove : edit.replace;
  const index = jobs.findIndex((j) => j.id === id);
  if (index < 0) throw new NotFoundError(`job in ${JOBS_FILE}`, id);
  const replacement = "with" in edit ? jobTable(edit.with) : "";
  const lines = text.split("\n");
  const block = jobBlocks(lines, jobs.length)?.[index];
  if (!block) {
    // Jobs written as an inline array: rewrite the whole file from the parsed jobs.
    const next = jobs.flatMap((j, i) => (i !== index ? [j] : "with" in edit ? [edit.with] : []));
    return checked(next.map(jobTable).join("\n"));
  }
  const [start, end] = block;
  const kept = replacement === "" ? [] : [replacement.trimEnd()];
  const joined = [...lines.slice(0, start), ...kept, ...lines.slice(end)].join("\n");
  return checked(`${joined.replace(/\n{3,}/g, "\n\n").trimEnd()}\n`);
}

function checked(text: string): string {
  checkJobsToml(text);
  return text;
}
