import { isIP } from "node:net";
import { aString } from "../common.js";

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function isHostName(value: string): boolean {
  return HOSTNAME.test(value);
}

/** An address to listen on: an IPv4 or IPv6 address or a host name. */
export const bindAddress = aString().refine(
  (v) => isIP(v) !== 0 || isHostName(v),
  "must be an IP address or host name (like 127.0.0.1, :: or localhost)",
);

/** An egress rule's host: an exact host name, an IP address, or `*.` plus a domain for all its subdomains. */
export const hostPattern = aString().refine(
  (v) => isIP(v) !== 0 || isHostName(v.startsWith("*.") ? v.slice(2) : v),
  "must be a host name, an IP address or *. followed by a domain (like api.github.com or *.wikipedia.org)",
);

/** An http(s) URL, e.g. an OpenAI-compatible API base such as `https://openrouter.ai/api/v1`. */
export const httpUrl = aString().refine((v) => {
  try {
    const url = new URL(v);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}, "must be an http:// or https:// URL");
