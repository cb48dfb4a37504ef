import { appendOpenFile, closeDir, closeFile, openDirectory, openFile } from "../core/index.js";

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
    const line = text.endsWith("\n") ? text : `${text}\n`;
    // Reached by descriptors, never through a link: a tool may have swapped logs/ or the day's file for one.
    const write = this.tail.then(() =>
      this.serialize(async () => {
        const dir = openDirectory(this.brainRoot, ["logs"], { create: true, shown: path });
        if (!dir) throw new Error(`${path}: logs/ could not be created`);
        try {
          const file = openFile(dir, path.slice("logs/".length), "append");
          if (!file) throw new Error(`${path} could not be created`);
          try {
            appendOpenFile(
              file,
              file.info.size === 0 ? `# ${date.toISOString().slice(0, 10)}\n\n${line}` : line,
            );
          } finally {
            closeFile(file);
          }
        } finally {
          closeDir(dir);
        }
      }),
    );
    this.tail = write.catch(() => undefined);
    return write.then(() => path);
  }
}
