import { parseHTML } from "linkedom";
import { describe, expect, it } from "vitest";
import { isLongMessage, showAllLabel } from "./collapse.js";
import { renderMarkdown } from "./markdown.js";

const { document } = parseHTML("<!doctype html><html><body></body></html>");
const render = (text: string) => {
  const host = document.createElement("div");
  host.append(renderMarkdown(text, document as unknown as Document));
  return host;
};

describe("markdown in the UI", () => {
  it("keeps markup the agent writes as text", () => {
    const host = render('<img src=x onerror="alert(1)"> **<script>alert(2)</script>**');
    expect(host.querySelector("img")).toBeNull();
    expect(host.querySelector("script")).toBeNull();
    expect(host.querySelector("strong")?.textContent).toBe("<script>alert(2)</script>");
    expect(host.textContent).toContain('<img src=x onerror="alert(1)">');
  });

  it("renders paragraphs, inline code, bold, italics, lists, headings, quotes and fenced code", () => {
    const host = render(
      "# Plan\n\nUse `ls` **now**, *gently*.\nthen rest\n\n- one\n- two\n\n1. first\n\n> quoted\n\n```sh\necho <b>\n```",
    );
    expect(host.querySelector("h3")?.textContent).toBe("Plan");
    expect(host.querySelector("p code")?.textContent).toBe("ls");
    expect(host.querySelector("p strong")?.textContent).toBe("now");
    expect(host.querySelector("p em")?.textContent).toBe("gently");
    expect(host.querySelectorAll("p br")).toHaveLength(1);
    expect([...host.querySelectorAll("ul li")].map((li) => li.textContent)).toEqual(["one", "two"]);
    expect(host.querySelector("ol li")?.textContent).toBe("first");
    expect(host.querySelector("blockquote p")?.textContent).toBe("quoted");
    expect(host.querySelector("pre code")?.textContent).toBe("echo <b>");
    expect(host.querySelector("pre code")?.getAttribute("data-language")).toBe("sh");
  });

  it("links only http(s) addresses, opening them without a referrer", () => {
    const host = render("[docs](https://example.org/a) and [bad](javascript:alert(1))");
    const links = [...host.querySelectorAll("a")];
    expect(links).toHaveLength(1);
    expect(links[0]?.getAttribute("href")).toBe("https://example.org/a");
    expect(links[0]?.getAttribute("rel")).toBe("noopener noreferrer");
    expect(host.textContent).toContain("[bad](javascript:alert(1))");
  });

  it("shows an unclosed fence, as mid-stream, as code to the end", () => {
    expect(render("Here:\n```\nline 1\nline 2").querySelector("pre code")?.textContent).toBe(
      "line 1\nline 2",
    );
  });

  it("renders a GFM table with its columns' alignment and inline markup in the cells", () => {
    const host = render(
      [
        "Before the table",
        "| Tool | Calls | Note |",
        "| :--- | ---: | :-: |",
        "| `bash` | 12 | **fast** |",
        "| file \\| dir | 3 | [docs](https://example.org) |",
        "| browser |",
        "",
        "After",
      ].join("\n"),
    );
    const table = host.querySelector(".table-scroll table");
    expect(table).not.toBeNull();
    expect([...host.querySelectorAll("thead th")].map((th) => th.textContent)).toEqual([
      "Tool",
      "Calls",
      "Note",
    ]);
    expect([...host.querySelectorAll("thead th")].map((th) => th.getAttribute("data-align"))).toEqual([
      "left",
      "right",
      "center",
    ]);
    const rows = [...host.querySelectorAll("tbody tr")];
    expect(rows).toHaveLength(3);
    expect(rows[0]?.querySelector("td code")?.textContent).toBe("bash");
    expect(rows[0]?.querySelector("td strong")?.textContent).toBe("fast");
    expect(rows[0]?.querySelectorAll("td")[1]?.getAttribute("data-align")).toBe("right");
    expect(rows[1]?.querySelector("td")?.textContent).toBe("file | dir");
    expect(rows[1]?.querySelector("a")?.getAttribute("href")).toBe("https://example.org");
    // A short row is padded to the header's width.
    expect(rows[2]?.querySelectorAll("td")).toHaveLength(3);
    expect(host.querySelectorAll("p")[0]?.textContent).toBe("Before the table");
    expect(host.querySelectorAll("p")[1]?.textContent).toBe("After");
  });

  it("leaves pipes that are not a table as text, and keeps markup in cells as text", () => {
    expect(render("a | b\nc | d").querySelector("table")).toBeNull();
    expect(render("| a | b |\n| --- |").querySelector("table")).toBeNull();
    const host = render("| x |\n| - |\n| <img src=x onerror=alert(1)> |");
    expect(host.querySelector("img")).toBeNull();
    expect(host.querySelector("td")?.textContent).toBe("<img src=x onerror=alert(1)>");
  });

  it("shows a code block's language, a Copy button and coloured tokens, the code itself unchanged", () => {
    const source = 'const greeting = "hi"; // say it\nreturn 42;';
    const host = render(`\`\`\`ts\n${source}\n\`\`\``);
    expect(host.querySelector(".code-block .code-lang")?.textContent).toBe("ts");
    expect(host.querySelector(".code-block button.code-copy")?.textContent).toBe("Copy");
    const code = host.querySelector("pre code");
    expect(code?.textContent).toBe(source);
    expect(code?.querySelector(".tok-keyword")?.textContent).toBe("const");
    expect(code?.querySelector(".tok-string")?.textContent).toBe('"hi"');
    expect(code?.querySelector(".tok-comment")?.textContent).toBe("// say it");
    expect(code?.querySelector(".tok-number")?.textContent).toBe("42");
    // A language it does not know is plain text; no language is called text.
    const plain = render("```\n<b>bold?</b>\n```");
    expect(plain.querySelector(".code-lang")?.textContent).toBe("text");
    expect(plain.querySelector("pre code span")).toBeNull();
    expect(plain.querySelector("b")).toBeNull();
  });
});

describe("long messages", () => {
  it("folds a message over 30 lines or 2500 characters, and says how many lines there are", () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");
    expect(isLongMessage(lines(30))).toBe(false);
    expect(isLongMessage(lines(31))).toBe(true);
    expect(isLongMessage("x".repeat(2_500))).toBe(false);
    expect(isLongMessage("x".repeat(2_501))).toBe(true);
    expect(showAllLabel(lines(120))).toBe("Show all 120 lines");
    expect(showAllLabel("x".repeat(3_000))).toBe("Show all");
  });
});
