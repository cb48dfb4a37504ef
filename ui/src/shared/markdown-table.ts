import { appendInline } from "./markdown-inline.js";

// GFM tables: a header row, a delimiter row (`| --- | :-: | --: |`) with as many columns, then body rows
// until a blank line or a line without a pipe. Cells take inline markup; `\|` is a pipe inside a cell.

export type Align = "left" | "center" | "right" | "";

const DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** The row's cells: outer pipes dropped, split on pipes that are neither escaped nor inside `code`. */
export function splitRow(line: string): string[] {
  const body = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  const cells: string[] = [];
  let cell = "";
  let inCode = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "\\" && body[i + 1] === "|") {
      cell += "|";
      i += 1;
    } else if (ch === "`") {
      inCode = !inCode;
      cell += ch;
    } else if (ch === "|" && !inCode) {
      cells.push(cell.trim());
      cell = "";
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

function alignOf(cell: string): Align {
  const left = cell.startsWith(":");
  const right = cell.endsWith(":");
  return left && right ? "center" : right ? "right" : left ? "left" : "";
}

/** True when a table starts at `index`: a row with a pipe, then a delimiter row of the same width. */
export function isTableStart(lines: string[], index: number): boolean {
  const head = lines[index] ?? "";
  const delimiter = lines[index + 1] ?? "";
  if (!head.includes("|") || !DELIMITER.test(delimiter) || !delimiter.includes("-")) return false;
  return splitRow(head).length === splitRow(delimiter).length;
}

/** Appends the table that starts at `start`; returns the index of the first line after it. */
export function appendTable(parent: Node, lines: string[], start: number, doc: Document): number {
  const header = splitRow(lines[start] ?? "");
  const aligns = splitRow(lines[start + 1] ?? "").map(alignOf);
  const wrap = doc.createElement("div");
  wrap.setAttribute("class", "table-scroll");
  const table = doc.createElement("table");
  const head = doc.createElement("thead");
  head.append(row(doc, "th", header, aligns));
  table.append(head);
  const body = doc.createElement("tbody");
  let i = start + 2;
  while (i < lines.length && (lines[i] ?? "").trim() !== "" && (lines[i] ?? "").includes("|")) {
    const cells = splitRow(lines[i] ?? "");
    body.append(
      row(
        doc,
        "td",
        header.map((_, n) => cells[n] ?? ""),
        aligns,
      ),
    );
    i += 1;
  }
  if (body.childNodes.length > 0) table.append(body);
  wrap.append(table);
  parent.appendChild(wrap);
  return i;
}

function row(doc: Document, tag: "th" | "td", cells: string[], aligns: Align[]): HTMLElement {
  const tr = doc.createElement("tr");
  cells.forEach((text, n) => {
    const cell = doc.createElement(tag);
    if (tag === "th") cell.setAttribute("scope", "col");
    const align = aligns[n];
    // An attribute the stylesheet reads: the page's CSP allows no style attributes.
    if (align) cell.setAttribute("data-align", align);
    appendInline(cell, text, doc);
    tr.append(cell);
  });
  return tr;
}
