import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";

/** The main text of an HTML page (Readability over a linkedom DOM), or all body text when that finds nothing. */
export function readableText(html: string): { title: string; text: string } {
  const { document } = parseHTML(html);
  const title = String(document.title ?? "").trim();
  // Readability rewrites the tree it reads, so the fallback text is taken first.
  const bodyText = String(document.body?.textContent ?? "");
  let article: { title?: string | null; textContent?: string | null } | null = null;
  try {
    article = new Readability(document).parse();
  } catch {
    // A page Readability cannot handle still has its body text.
  }
  const text = article?.textContent?.trim() ? article.textContent : bodyText;
  return { title: article?.title?.trim() || title, text: tidy(text) };
}

function tidy(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
