import { parseHTML } from "linkedom";
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../shared/markdown.js";
import { parseHash } from "../shared/route.js";
import { linkCitations } from "./citation-links.js";

const { document } = parseHTML("<!doctype html><html><body></body></html>");
const doc = document as unknown as Document;
const render = (text: string) => {
  const host = doc.createElement("div");
  host.append(renderMarkdown(text, doc));
  linkCitations(host, doc);
  return host;
};

describe("citations in an answer", () => {
  it("become links to the memory inspector at the cited file and heading", () => {
    const host = render(
      "You chose a heat pump [sessions/2026-03-03/01JX.md#09:15:00 — user] and the code is in [memory.md].",
    );
    const links = [...host.querySelectorAll("a.citation")];
    expect(links.map((a) => a.textContent)).toEqual([
      "[sessions/2026-03-03/01JX.md#09:15:00 — user]",
      "[memory.md]",
    ]);
    const first = links[0]?.getAttribute("href") ?? "";
    expect(parseHash(first)).toEqual({ view: "memory", rest: "sessions/2026-03-03/01JX.md#09:15:00 — user" });
    expect(parseHash(links[1]?.getAttribute("href") ?? "")).toEqual({ view: "memory", rest: "memory.md" });
    expect(host.textContent).toBe(
      "You chose a heat pump [sessions/2026-03-03/01JX.md#09:15:00 — user] and the code is in [memory.md].",
    );
  });

  it("are left alone inside code, in ordinary links and when they are not brain files", () => {
    const host = render("`[memory.md#Tea]` and [notes](https://example.com/a.md) and [1] and [x.txt#y]");
    expect(host.querySelectorAll("a.citation")).toHaveLength(0);
    expect(host.querySelector("code")?.textContent).toBe("[memory.md#Tea]");
  });

  it("stay text when the cited path carries markup", () => {
    const host = render('[<img src=x onerror="alert(1)">.md#h]');
    expect(host.querySelector("img")).toBeNull();
    expect(host.querySelector("a.citation")?.textContent).toBe('[<img src=x onerror="alert(1)">.md#h]');
  });
});
