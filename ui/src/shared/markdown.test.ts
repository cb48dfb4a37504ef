import { parseHTML } from "linkedom";
import { describe, expect, it } from "vitest";
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
});
