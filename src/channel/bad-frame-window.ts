/**
 * Counts bad frames over a sliding window of time, not in a row: a peer that interleaves garbage with valid
 * frames (a Heartbeat between every bad frame) would reset a consecutive counter forever, while every bad
 * frame still costs this side an answer. Memory is bounded by the limit: older entries fall out.
 */
export class BadFrameWindow {
  private readonly times: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Records one bad frame; true when more than `limit` fell within the last `windowMs`. */
  record(now = Date.now()): boolean {
    this.times.push(now);
    while (this.times.length > 0 && now - (this.times[0] as number) > this.windowMs) this.times.shift();
    // Only the newest limit + 1 entries can matter for the verdict.
    if (this.times.length > this.limit + 1) this.times.shift();
    return this.times.length > this.limit;
  }

  /** Bad frames inside the window right now. */
  count(now = Date.now()): number {
    return this.times.filter((t) => now - t <= this.windowMs).length;
  }
}
