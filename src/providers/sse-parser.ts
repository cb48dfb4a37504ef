/**
 * An incremental Server-Sent Events parser (the subset chat completions use): `data:` fields joined by newlines,
 * events ended by a blank line, comments (`: keep-alive`) and other fields ignored, CR, LF and CRLF line ends.
 */
export class SseParser {
  private buffer = "";
  private data: string[] = [];

  /** Feeds decoded text; returns the data of every event it completed. */
  push(text: string): string[] {
    this.buffer += text;
    const events: string[] = [];
    let start = 0;
    for (;;) {
      const lf = this.buffer.indexOf("\n", start);
      const cr = this.buffer.indexOf("\r", start);
      let end = lf;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR as the last character may be the first half of a CRLF that has not arrived yet.
        if (cr === this.buffer.length - 1) break;
        end = cr;
      }
      if (end === -1) break;
      const line = this.buffer.slice(start, end);
      start = end + (this.buffer[end] === "\r" && this.buffer[end + 1] === "\n" ? 2 : 1);
      this.takeLine(line, events);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /** Ends the input; an event missing its closing blank line is still returned, since some servers omit it. */
  end(): string[] {
    const events: string[] = [];
    if (this.buffer !== "") this.takeLine(this.buffer, events);
    this.buffer = "";
    if (this.data.length > 0) events.push(this.data.join("\n"));
    this.data = [];
    return events;
  }

  private takeLine(line: string, events: string[]): void {
    if (line === "") {
      if (this.data.length > 0) events.push(this.data.join("\n"));
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== "data") return;
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    this.data.push(value);
  }
}
