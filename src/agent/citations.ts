import type { SearchHit } from "../memory/index.js";

/** A reference to a brain passage in an answer: `[path#heading]`, or `[path]` for a whole file. */
export interface Citation {
  path: string;
  heading?: string;
}

// `[memory.md#Boiler]`, `[sessions/2026-03-03/01J….md#14:02:11 — user]`; not a markdown link `[text](url)`.
const CITATION = /\[([^[\]\s#][^[\]#\n]*?\.md)(?:#([^[\]\n]+))?\](?!\()/g;

/** How the agent is asked to cite a passage: its file and its innermost heading. */
export function citeKey(hit: Pick<SearchHit, "path" | "headings">): string {
  const heading = hit.headings.at(-1);
  return heading ? `[${hit.path}#${heading}]` : `[${hit.path}]`;
}

/** The citations in an answer, in order, each once. */
export function parseCitations(text: string): Citation[] {
  const seen = new Set<string>();
  const out: Citation[] = [];
  for (const match of text.matchAll(CITATION)) {
    const path = (match[1] as string).trim();
    const heading = match[2]?.trim();
    const key = `${path}#${heading ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(heading ? { path, heading } : { path });
  }
  return out;
}

/** The hits an answer cites: same path, and the cited heading is one of the hit's headings (or none given). */
export function citedHits<T extends Pick<SearchHit, "path" | "headings">>(
  text: string,
  hits: readonly T[],
): T[] {
  const citations = parseCitations(text);
  if (citations.length === 0) return [];
  return hits.filter((hit) =>
    citations.some(
      (c) => c.path === hit.path && (c.heading === undefined || hit.headings.includes(c.heading)),
    ),
  );
}
