import { InvalidInputError } from "../core/index.js";
import { chunkId, contentHash } from "./chunk-id.js";
import { type TopBlock, topBlocks } from "./markdown-blocks.js";
import { splitRange, type TextRange } from "./text-split.js";

/** One retrievable piece of a markdown file, with its provenance. */
export interface Chunk {
  id: string;
  /** Brain-relative path of the file. */
  path: string;
  /** Text of the enclosing headings, outermost first; empty for text before the first heading. */
  headings: string[];
  /** Counts chunks with the same heading trail in the file: parts of a split section, repeated headings. */
  ordinal: number;
  /** 1-based, inclusive, in the file as it was read. */
  startLine: number;
  endLine: number;
  /** The exact markdown of those lines (from the first block's start to the last block's end). */
  text: string;
  contentHash: string;
}

export interface ChunkOptions {
  /** Upper bound on a chunk's UTF-8 size (the `[indexing] chunk_max_bytes` setting). */
  maxBytes?: number;
}

export const DEFAULT_CHUNK_MAX_BYTES = 2048;

interface Section {
  headings: string[];
  depth: number;
  heading?: TopBlock;
  blocks: TopBlock[];
}

/**
 * Splits markdown into heading-aware chunks, by its CommonMark blocks (markdown-blocks.ts): each top-level heading starts a
 * section whose chunks carry the trail of enclosing headings; a section larger than `maxBytes` is split between
 * blocks, then between sentences or lines inside an oversized block. A heading with no text of its own is kept
 * only when it has no subsections (a log entry that is just a heading still says something).
 */
export function chunkMarkdown(path: string, markdown: string, options: ChunkOptions = {}): Chunk[] {
  const maxBytes = options.maxBytes ?? DEFAULT_CHUNK_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 64) {
    throw new InvalidInputError("maxBytes", `must be an integer of at least 64, got ${maxBytes}`);
  }
  const source = blankFrontmatter(markdown);
  const sections = sectionsOf(topBlocks(source));
  const lines = lineStarts(source);
  const ordinals = new Map<string, number>();
  const chunks: Chunk[] = [];
  sections.forEach((section, i) => {
    const next = sections[i + 1];
    const units = section.blocks.map(rangeOf);
    if (section.heading) {
      const heading = rangeOf(section.heading);
      if (units.length === 0 && next !== undefined && next.depth > section.depth) return;
      if (units[0]) units[0] = { start: heading.start, end: units[0].end };
      else units.push(heading);
    }
    for (const range of packRanges(source, units, maxBytes)) {
      const text = source.slice(range.start, range.end);
      if (text.trim() === "") continue;
      const key = JSON.stringify(section.headings);
      const ordinal = ordinals.get(key) ?? 0;
      ordinals.set(key, ordinal + 1);
      const hash = contentHash(text);
      chunks.push({
        id: chunkId(path, section.headings, ordinal, hash),
        path,
        headings: section.headings,
        ordinal,
        startLine: lineOf(lines, range.start),
        endLine: lineOf(lines, Math.max(range.start, range.end - 1)),
        text,
        contentHash: hash,
      });
    }
  });
  return chunks;
}

function sectionsOf(blocks: TopBlock[]): Section[] {
  const trail: Array<{ depth: number; text: string }> = [];
  const sections: Section[] = [{ headings: [], depth: 0, blocks: [] }];
  for (const block of blocks) {
    if (block.kind === "heading") {
      while (trail.length > 0 && (trail.at(-1)?.depth ?? 0) >= block.depth) trail.pop();
      trail.push({ depth: block.depth, text: block.text.replace(/\s+/g, " ").trim() });
      sections.push({ headings: trail.map((t) => t.text), depth: block.depth, heading: block, blocks: [] });
    } else {
      sections.at(-1)?.blocks.push(block);
    }
  }
  return sections;
}

/** Greedily packs consecutive ranges into pieces of at most `maxBytes`, splitting any range that alone is too big. */
function packRanges(source: string, units: TextRange[], maxBytes: number): TextRange[] {
  const out: TextRange[] = [];
  let current: TextRange | undefined;
  for (const unit of units) {
    const pieces = byteLength(source, unit) > maxBytes ? splitRange(source, unit, maxBytes) : [unit];
    for (const piece of pieces) {
      const joined: TextRange | undefined = current && { start: current.start, end: piece.end };
      if (joined && byteLength(source, joined) <= maxBytes) current = joined;
      else {
        if (current) out.push(current);
        current = piece;
      }
    }
  }
  if (current) out.push(current);
  return out;
}

function byteLength(source: string, range: TextRange): number {
  return Buffer.byteLength(source.slice(range.start, range.end), "utf8");
}

function rangeOf(block: TopBlock): TextRange {
  return { start: block.start, end: block.end };
}

/**
 * YAML frontmatter is metadata, and CommonMark would read its closing `---` as a setext heading underline.
 * Blanking it (same length, newlines kept) keeps every offset and line number true to the file.
 */
function blankFrontmatter(markdown: string): string {
  const match = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(markdown);
  if (!match) return markdown;
  return match[0].replace(/[^\n]/g, " ") + markdown.slice(match[0].length);
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
