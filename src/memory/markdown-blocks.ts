import { fromMarkdown } from "mdast-util-from-markdown";

/** A top-level block of a markdown document: where it is, and for a heading its depth and plain text. */
export type TopBlock =
  | { kind: "heading"; depth: number; text: string; start: number; end: number }
  | { kind: "other"; start: number; end: number };

/**
 * The document's top-level blocks, link reference definitions left out. A line scanner reads the common
 * shapes of notes (ATX headings, paragraphs, fenced code, simple lists) about twenty times faster than a full
 * CommonMark parse; any line it cannot place with certainty sends the whole document to micromark, so the
 * blocks are the same either way (markdown-blocks.test.ts compares the two).
 */
export function topBlocks(source: string): TopBlock[] {
  return scanBlocks(source) ?? parsedBlocks(source);
}

/** The blocks as micromark and mdast see them. */
export function parsedBlocks(source: string): TopBlock[] {
  const blocks: TopBlock[] = [];
  for (const node of fromMarkdown(source).children) {
    if (node.type === "definition") continue;
    const start = node.position?.start.offset ?? 0;
    const end = node.position?.end.offset ?? 0;
    blocks.push(
      node.type === "heading"
        ? { kind: "heading", depth: node.depth, text: plainText(node), start, end }
        : { kind: "other", start, end },
    );
  }
  return blocks;
}

function plainText(node: unknown): string {
  if (typeof node !== "object" || node === null) return "";
  const n = node as { value?: unknown; alt?: unknown; children?: unknown[] };
  if (typeof n.value === "string") return n.value;
  if (typeof n.alt === "string") return n.alt;
  return (n.children ?? []).map(plainText).join("");
}

/** Thrown inside the scanner for a line it does not place with certainty; caught by scanBlocks. */
class Unsure extends Error {}

// Characters whose presence anywhere sends a document to the parser: tabs (column arithmetic), carriage
// returns, NUL and the other whitespace CommonMark treats specially.
const AWKWARD = /[\t\r\0\f\v]/;
const ATX = /^(#{1,6})(?: |$)/;
const FENCE = /^(`{3,}|~{3,})/;
// A line of only these characters and spaces may be a thematic break or a setext underline.
const RULE_LIKE = /^[-*_=][-*_= ]*$/;
const BULLET = /^([-*+])( |$)/;
const BULLET_SIMPLE = /^[-*+] [^ ]/;
const ORDERED = /^(\d{1,9})([.)])( |$)/;
const ORDERED_SIMPLE = /^\d{1,9}[.)] [^ ]/;
// Inline syntax in a heading: its plain text needs the parser (brackets: a reference may be defined anywhere).
const HEADING_INLINE = /[\\`*_<&!]/;
const HEADING_BRACKET = /[[\]]/;

interface Line {
  start: number;
  end: number;
  indent: number;
  /** The line after its indentation. */
  rest: string;
  blank: boolean;
}

type Start =
  | { kind: "heading"; depth: number }
  | { kind: "fence"; marker: string }
  | { kind: "item"; list: string; width: number }
  | { kind: "text" };

/**
 * The scanner: undefined when the document has anything it does not handle exactly (block quotes, HTML,
 * indented code, setext headings, thematic breaks, definitions, tables of tabs, lists it cannot follow).
 */
export function scanBlocks(source: string): TopBlock[] | undefined {
  if (AWKWARD.test(source)) return undefined;
  try {
    return new Scanner(source).blocks();
  } catch (error) {
    if (error instanceof Unsure) return undefined;
    throw error;
  }
}

class Scanner {
  private readonly lines: Line[] = [];
  private at = 0;
  private readonly out: TopBlock[] = [];

  constructor(private readonly source: string) {
    for (let start = 0; start <= source.length; ) {
      const newline = source.indexOf("\n", start);
      const end = newline < 0 ? source.length : newline;
      const text = source.slice(start, end);
      let indent = 0;
      while (text.charCodeAt(indent) === 32) indent++;
      this.lines.push({ start, end, indent, rest: text.slice(indent), blank: indent === text.length });
      if (newline < 0) break;
      start = newline + 1;
    }
  }

  blocks(): TopBlock[] {
    while (this.at < this.lines.length) {
      const line = this.lines[this.at] as Line;
      if (line.blank) {
        this.at++;
        continue;
      }
      if (line.indent >= 4) throw new Unsure();
      const start = classifyStart(line.rest);
      if (start.kind === "heading") this.heading(line, start.depth);
      else if (start.kind === "fence") this.fence(line, start.marker);
      else if (start.kind === "item") {
        if (line.indent !== 0) throw new Unsure();
        this.list(start.list, start.width);
      } else {
        if (line.rest.startsWith("[")) throw new Unsure();
        this.paragraph();
      }
    }
    return this.out;
  }

  private heading(line: Line, depth: number): void {
    let content = line.rest.slice(depth).replace(/^ +/, "");
    content = /^#+ *$/.test(content) ? "" : content.replace(/ +#+ *$/, "").replace(/ +$/, "");
    if (HEADING_BRACKET.test(content)) throw new Unsure();
    const text = HEADING_INLINE.test(content) ? headingText(line.rest) : content;
    this.out.push({ kind: "heading", depth, text, start: line.start + line.indent, end: line.end });
    this.at++;
  }

  private fence(open: Line, marker: string): void {
    const closing = closingFence(open.rest, marker);
    let end = this.source.length;
    for (this.at++; this.at < this.lines.length; this.at++) {
      const line = this.lines[this.at] as Line;
      if (line.indent < 4 && closing.test(line.rest)) {
        end = line.end;
        this.at++;
        break;
      }
    }
    this.out.push({ kind: "other", start: open.start + open.indent, end });
  }

  private paragraph(): void {
    const first = this.lines[this.at] as Line;
    let last = first;
    for (this.at++; this.at < this.lines.length; this.at++) {
      const line = this.lines[this.at] as Line;
      if (line.blank || !continuesParagraph(line)) break;
      last = line;
    }
    this.out.push({ kind: "other", start: first.start + first.indent, end: last.end });
  }

  /**
   * A list whose items start at column 0 with the same bullet (or the same delimiter after a number). An item
   * may hold paragraphs and fenced code at its own indentation; anything nested deeper is followed only as far
   * as it cannot change where the list ends.
   */
  private list(kind: string, firstWidth: number): void {
    const first = this.lines[this.at] as Line;
    const item = new ItemState(firstWidth, first.rest.slice(firstWidth), 0);
    let last = first;
    let afterBlank = false;
    for (this.at++; this.at < this.lines.length; this.at++) {
      const line = this.lines[this.at] as Line;
      if (line.blank) {
        afterBlank = true;
        item.lazy = false;
        continue;
      }
      if (line.indent >= item.width) {
        item.take(line.rest, line.indent - item.width);
        last = line;
        afterBlank = false;
        continue;
      }
      // Not indented enough: a fence still open in the item would end with it, past what is tracked here.
      if (item.fence) throw new Unsure();
      if (line.indent !== 0) throw new Unsure();
      const start = classifyStart(line.rest);
      if (start.kind === "item") {
        if (start.list !== kind) {
          if (!afterBlank) throw new Unsure();
          break;
        }
        item.reset(start.width, line.rest.slice(start.width));
        last = line;
        afterBlank = false;
        continue;
      }
      if (afterBlank) break;
      // Right after the item's paragraph, a line that does not start a block is a lazy continuation of it.
      if (continuesParagraph(line)) {
        if (!item.lazy) throw new Unsure();
        last = line;
        continue;
      }
      if (start.kind === "heading" || start.kind === "fence") break;
      throw new Unsure();
    }
    if (item.fence) throw new Unsure();
    this.out.push({ kind: "other", start: first.start, end: last.end });
  }
}

/** What the scanner knows of the list item it is in. */
class ItemState {
  /** The closing line of a fenced code block open at the item's own indentation. */
  fence: RegExp | undefined;
  /** The item's last block is an open paragraph, so an unindented text line continues it. */
  lazy = false;
  /** The item holds a block other than paragraphs and fenced code at its own indentation. */
  private nested = false;

  constructor(
    public width: number,
    content: string,
    indent: number,
  ) {
    this.take(content, indent);
  }

  reset(width: number, content: string): void {
    this.width = width;
    this.fence = undefined;
    this.lazy = false;
    this.nested = false;
    this.take(content, 0);
  }

  /** One line inside the item: its text after the indentation, and how far it is indented past the item's. */
  take(rest: string, relative: number): void {
    if (this.fence) {
      if (relative < 4 && this.fence.test(rest)) this.fence = undefined;
      return;
    }
    if (relative >= 4) {
      // Indented code, or a paragraph's continuation: either way inside the item.
      if (!this.lazy) this.nested = true;
      return;
    }
    const start = classifyStart(rest);
    if (start.kind === "text") {
      this.lazy = this.lazy || !this.nested;
      return;
    }
    if (start.kind === "fence" && relative === 0 && !this.nested) {
      this.fence = closingFence(rest, start.marker);
      this.lazy = false;
      return;
    }
    if (start.kind === "fence") throw new Unsure();
    this.nested = true;
    this.lazy = false;
  }
}

/** What a line (after its indentation, at most three spaces) starts when no paragraph is open. */
function classifyStart(rest: string): Start {
  const atx = ATX.exec(rest);
  if (atx) return { kind: "heading", depth: (atx[1] as string).length };
  const fence = FENCE.exec(rest);
  if (fence) return { kind: "fence", marker: fence[1] as string };
  if (RULE_LIKE.test(rest)) throw new Unsure();
  if (BULLET.test(rest)) {
    if (!BULLET_SIMPLE.test(rest)) throw new Unsure();
    return { kind: "item", list: rest[0] as string, width: 2 };
  }
  const ordered = ORDERED.exec(rest);
  if (ordered) {
    if (!ORDERED_SIMPLE.test(rest)) throw new Unsure();
    return { kind: "item", list: ordered[2] as string, width: (ordered[1] as string).length + 2 };
  }
  const c = rest[0];
  if (c === ">" || c === "<") throw new Unsure();
  return { kind: "text" };
}

/** Whether a non-blank line continues an open paragraph (throws for a line that might interrupt it otherwise). */
function continuesParagraph(line: Line): boolean {
  if (line.indent >= 4) return true;
  const rest = line.rest;
  if (ATX.test(rest) || FENCE.test(rest)) return false;
  if (RULE_LIKE.test(rest)) throw new Unsure();
  if (BULLET.test(rest)) {
    if (line.indent !== 0 || !BULLET_SIMPLE.test(rest)) throw new Unsure();
    return false;
  }
  const ordered = ORDERED.exec(rest);
  if (ordered) {
    // Only a list starting at 1 may interrupt a paragraph; any other number is text.
    if (Number(ordered[1]) !== 1) return true;
    if (line.indent !== 0 || !ORDERED_SIMPLE.test(rest)) throw new Unsure();
    return false;
  }
  const c = rest[0];
  if (c === ">" || c === "<") throw new Unsure();
  return true;
}

/** The pattern of the line that closes a fence opened by `rest`; throws for a backtick fence with a backtick after it. */
function closingFence(rest: string, marker: string): RegExp {
  if (marker[0] === "`" && rest.slice(marker.length).includes("`")) throw new Unsure();
  return new RegExp(`^${marker[0] === "`" ? "`" : "~"}{${marker.length},} *$`);
}

/** The plain text of one ATX heading line with inline syntax (emphasis, code, escapes, entities). */
function headingText(line: string): string {
  const [block] = parsedBlocks(line);
  if (block?.kind !== "heading") throw new Unsure();
  return block.text;
}
