import { z } from "zod";
import type { HostPolicy } from "./host-policy.js";
import { type FetchedPage, type FetchLimits, fetchPage } from "./page-fetch.js";
import { readableText } from "./readable-text.js";
import { defineTool, failed, ok } from "./tool-definition.js";

/** How a page is fetched: directly (a host-side run), or through the warden's egress proxy (in a cell). */
export type PageFetcher = (
  url: string,
  policy: HostPolicy,
  limits: FetchLimits,
  signal: AbortSignal,
) => Promise<FetchedPage>;

export interface BrowserToolOptions extends Partial<FetchLimits> {
  policy: HostPolicy;
  fetch?: PageFetcher;
  /** Characters of page text returned to the model by default. */
  maxChars?: number;
}

const browserArgs = z.strictObject({
  url: z.string().min(1).describe("an http:// or https:// URL"),
  max_chars: z.number().int().min(100).max(200_000).optional().describe("how much page text to return"),
});

/** Fetches a page and returns its readable text, within the host policy and the size and time caps. */
export function createBrowserTool(options: BrowserToolOptions) {
  const limits: FetchLimits = {
    maxBytes: options.maxBytes ?? 2 * 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 15_000,
    maxRedirects: options.maxRedirects ?? 5,
  };
  const defaultChars = options.maxChars ?? 20_000;
  return defineTool({
    name: "browser",
    description:
      "Fetch a web page over http(s) and return its readable text (HTML is reduced to the main article). " +
      "Only hosts allowed by the brain's network policy are reachable.",
    parameters: browserArgs,
    async execute(args, { signal }) {
      const page = await (options.fetch ?? fetchPage)(args.url, options.policy, limits, signal);
      const type = page.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
      const details = { url: page.url, status: page.status, contentType: type, bytes: page.body.length };
      const raw = decode(page.body, page.contentType);
      let title = "";
      let text: string;
      if (type === "text/html" || type === "application/xhtml+xml")
        ({ title, text } = await readableText(raw));
      else if (
        type.startsWith("text/") ||
        type === "application/json" ||
        type.endsWith("+json") ||
        type === ""
      )
        text = raw;
      else return failed(`${page.url} is ${type}, which the browser tool does not read`, details);
      const max = args.max_chars ?? defaultChars;
      const notes = [
        page.truncated ? `[download cut at ${limits.maxBytes} bytes]` : "",
        text.length > max ? `[text cut: showing ${max} of ${text.length} characters]` : "",
      ].filter((n) => n !== "");
      const header = [`URL: ${page.url}`, `Status: ${page.status}`, title ? `Title: ${title}` : ""].filter(
        (l) => l,
      );
      const content = [...header, "", text.slice(0, max), ...notes].join("\n");
      return page.status >= 400 ? failed(content, details) : ok(content, details);
    },
  });
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset=([^;]+)/i.exec(contentType)?.[1]?.trim().replace(/^"|"$/g, "");
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return body.toString("utf8");
  }
}
