import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The brain's daily stream, `logs/YYYY-MM-DD.md` by UTC date (seed 003 §5.1), as the runtime writes to it:
 * audit lines and job results. A new day's file starts with the same `# YYYY-MM-DD` heading memory uses.
 */
export class DayLog {
  // Appends from one runtime are chained so that lines from concurrent tool calls never interleave mid-line.
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly brainRoot: string,
    /** Serialises the append with other writers of brain files (a forget rewriting the same log). */
    private readonly serialize: <T>(write: () => Promise<T>) => Promise<T> = (write) => write(),
  ) {}

  /** The brain-relative path of the log for `date`. */
  pathFor(date: Date): string {
    return `logs/${date.toISOString().slice(0, 10)}.md`;
  }

  /** Appends text (one or more whole lines) to the day's log; returns its brain-relative path. */
  append(text: string, date: Date): Promise<string> {
    const path = this.pathFor(date);
    const absolute = join(this.brainRoot, path);
    const line = text.endsWith("\n") ? text : `${text}\n`;
    const write = this.tail.then(() =>
      this.serialize(async () => {
        await mkdir(join(this.brainRoot, "logs"), { recursive: true });
        try {
          await writeFile(absolute, `# ${date.toISOString().slice(0, 10)}\n\n${line}`, { flag: "wx" });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
          await appendFile(absolute, line);
        }
      }),
    );
    this.tail = write.catch(() => undefined);
    return write.then(() => path);
  }
}
