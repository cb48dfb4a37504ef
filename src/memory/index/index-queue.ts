/** What to index next: some brain-relative paths, or a full scan. */
export type IndexRequest = readonly string[] | "all";

/**
 * Serialises indexing in one process: requests that arrive while a pass runs are merged into the next pass,
 * so a burst of edits (or remembers) costs one or two passes, never overlapping ones. A failed pass is reported
 * to `onError` and does not stop the queue: the files stay stale until the next request, never half-written.
 */
export class IndexQueue {
  private pendingPaths = new Set<string>();
  private pendingAll = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly run: (request: IndexRequest) => Promise<unknown>,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  request(request: IndexRequest): void {
    if (request === "all") this.pendingAll = true;
    else for (const path of request) this.pendingPaths.add(path);
    this.running ??= this.pump().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves once every request made so far has been indexed (or has failed and been reported). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  private async pump(): Promise<void> {
    // Let requests made in the same tick join this pass.
    await Promise.resolve();
    while (this.pendingAll || this.pendingPaths.size > 0) {
      const request: IndexRequest = this.pendingAll ? "all" : [...this.pendingPaths];
      this.pendingAll = false;
      this.pendingPaths = new Set();
      try {
        await this.run(request);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
