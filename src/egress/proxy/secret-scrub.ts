import type { ProxyBinding } from "./proxy-context.js";
import { type Replacement, StreamScrubber } from "./stream-scrubber.js";

/**
 * A scrubber that puts each secret's placeholder where the secret (or its JSON-escaped or percent-encoded
 * spelling, as an echo endpoint would reflect it inside JSON or a URL) appears in a response.
 */
export function responseScrubber(bindings: readonly ProxyBinding[]): StreamScrubber {
  const replacements: Replacement[] = [];
  for (const binding of bindings) {
    const spellings = new Set([
      binding.secret,
      JSON.stringify(binding.secret).slice(1, -1),
      encodeURIComponent(binding.secret),
    ]);
    for (const spelling of spellings)
      if (spelling.length > 0)
        replacements.push({
          find: Buffer.from(spelling, "utf8"),
          replaceWith: Buffer.from(binding.placeholder, "utf8"),
        });
  }
  return new StreamScrubber(replacements);
}

/** A scanner for the cell's placeholders in a request body, which are never replaced there. */
export function placeholderScanner(bindings: readonly ProxyBinding[]): StreamScrubber {
  return new StreamScrubber(
    bindings.map((binding) => ({
      find: Buffer.from(binding.placeholder, "utf8"),
      replaceWith: Buffer.alloc(0),
    })),
  );
}
