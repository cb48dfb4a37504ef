import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SENTENCE_WINDOW, sentenceStarts, splitRange } from "./text-split.js";

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

/** Lines as a pasted log has them: short sentences, no headings, no blank lines. */
function pastedLines(bytes: number): string {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `line ${i}: the quick brown fox jumps over the lazy dog ${i * 7}. Then it rests`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

describe("splitting oversized text", () => {
  it("finds the same sentence starts as one ICU pass, also across window ends", () => {
    const text = pastedLines(3 * SENTENCE_WINDOW);
    const whole = [...segmenter.segment(text)].map((s) => s.index);
    expect(sentenceStarts(text)).toEqual(whole);
  });

  it("cuts a window without a newline at a space, never inside a word", () => {
    const text = "word ".repeat(SENTENCE_WINDOW);
    const starts = sentenceStarts(text);
    expect(starts.length).toBeGreaterThan(1);
    for (const start of starts.slice(1)) expect(text[start - 1]).toBe(" ");
  });

  it("keeps every piece within the byte limit and loses no text", () => {
    const text = pastedLines(20_000);
    const pieces = splitRange(text, { start: 0, end: text.length }, 2048);
    for (const p of pieces) expect(Buffer.byteLength(text.slice(p.start, p.end))).toBeLessThanOrEqual(2048);
    expect(pieces.map((p) => text.slice(p.start, p.end).replace(/\s/g, "")).join("")).toBe(
      text.replace(/\s/g, ""),
    );
  });

  it("chunks a 1 MB paste without headings under a 64 MB heap (one ICU pass over it needed gigabytes)", () => {
    const chunker = fileURLToPath(new URL("./chunker.ts", import.meta.url));
    const script = `
      const { chunkMarkdown } = await import(${JSON.stringify(chunker)});
      const lines = [];
      for (let i = 0, size = 0; size < 1_000_000; i++) {
        const line = "line " + i + ": the quick brown fox jumps over the lazy dog. Then it rests";
        lines.push(line);
        size += line.length + 1;
      }
      console.log(chunkMarkdown("memory.md", lines.join("\\n")).length);
    `;
    const run = spawnSync(
      process.execPath,
      ["--max-old-space-size=64", "--import", "tsx", "--input-type=module", "-e", script],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(run.stderr).not.toMatch(/heap out of memory/);
    expect(run.status).toBe(0);
    expect(Number(run.stdout.trim())).toBeGreaterThan(400);
  }, 60_000);
});
