/**
 * The main text of an HTML page (Readability over a linkedom DOM), or all body text when that finds nothing.
 * The DOM is loaded on first use: it is the heaviest import of the runtime and most turns never browse, while
 * every cell start would pay for it.
 */
export async function readableText(html: string): Promise<{ title: string; text: string }> {
  const [{ parseHTML }, { Readability }] = await Promise.all([
    import("linkedom"),
    import("@mozilla/readability"),
  ]);
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
