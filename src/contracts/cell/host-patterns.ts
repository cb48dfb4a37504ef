import { isIP } from "node:net";
import { canonicalAddress, privateRangeRefusal } from "./address-ranges.js";

// What the host lists of irowclaw.toml `[tools.network]` and ironclawd.toml `[egress]` mean. A cell checks its
// brain's own (narrower) policy with these before it asks the warden for a page; the warden's egress checks the
// host's with the same functions, and again on every address a name resolves to. Each check returns the reason
// for a refusal instead of throwing, so each side refuses in its own error type with the same words.

/**
 * Which hosts the browser may fetch: under `deny` egress only hosts on the allow list, under `allow` any host not
 * on the deny list. The deny list wins in both modes.
 */
export interface HostPolicy {
  egress: "deny" | "allow";
  allowHosts: string[];
  denyHosts: string[];
  /** Loopback, LAN and link-local targets stay refused unless this is set (tests, a deliberate local service). */
  allowPrivate: boolean;
}

/** How much one fetch may take: the download cap, the whole fetch's time, the redirects followed. */
export interface FetchLimits {
  /** Bytes of (decompressed) body kept; the download stops there. */
  maxBytes: number;
  /** For the whole fetch, redirects included. */
  timeoutMs: number;
  maxRedirects: number;
}

/** A fetched page as the browser tool reads it, whether the warden or this process fetched it. */
export interface FetchedPage {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

/** `*.example.org` matches every subdomain of example.org but not example.org itself; other patterns are exact. */
export function matchesHost(host: string, pattern: string): boolean {
  const h = normalise(host);
  const p = normalise(pattern);
  if (isIP(h) !== 0 && isIP(p) !== 0) return sameAddress(h, p);
  if (p.startsWith("*.")) return h.endsWith(p.slice(1));
  return h === p;
}

/**
 * Why the policy does not let the browser reach `host`, or undefined when it does. This sees only the name (or
 * literal) in the URL; a name's addresses are checked by addressDenial inside the lookup the connection uses
 * (the warden's egress), so `localhost` cannot pass a deny of 127.0.0.1.
 */
export function hostRefusal(host: string, policy: HostPolicy): string | undefined {
  const denied = policy.denyHosts.find((p) => matchesHost(host, p));
  if (denied !== undefined)
    return `host ${host} is on the deny list${normalise(denied) === normalise(host) ? "" : ` (${denied})`}`;
  if (policy.egress === "deny" && !policy.allowHosts.some((p) => matchesHost(host, p)))
    return `host ${host} is not on the allow list (network egress is deny by default)`;
  return undefined;
}

/**
 * Why an address a host name resolved to is refused by the deny list, or undefined. Only the deny list is compared
 * by address: it must catch every way to reach a denied address (another name, an IPv4-mapped IPv6 form,
 * 0.0.0.0), while the allow list grants exactly the names it lists.
 */
export function addressDenial(hostname: string, address: string, policy: HostPolicy): string | undefined {
  const bare = normalise(address);
  if (isIP(bare) === 0) return undefined;
  const denied = policy.denyHosts.find((p) => isIP(normalise(p)) !== 0 && sameAddress(bare, normalise(p)));
  return denied === undefined
    ? undefined
    : `${hostname} resolves to ${address}, which is on the deny list (${denied})`;
}

/** A URL the browser may try, or why not: only http and https are fetched. */
export function parseFetchUrl(text: string): { url: URL } | { refusal: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { refusal: `${text} is not a URL` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { refusal: `${url.protocol} URLs are not fetched; use http or https` };
  return { url };
}

/**
 * Why `url` may not be fetched under `policy`, judged before any connection: the host lists, then an address
 * literal (which never goes through DNS) against the private ranges unless the policy allows them.
 * `literalRefusal` is the address check; the warden's also refuses its own interfaces' addresses.
 */
export function targetRefusal(
  url: URL,
  policy: HostPolicy,
  literalRefusal: (address: string) => string | undefined = privateRangeRefusal,
): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const listed = hostRefusal(host, policy);
  if (listed !== undefined) return listed;
  const why = isIP(host) !== 0 && !policy.allowPrivate ? literalRefusal(host) : undefined;
  return why === undefined ? undefined : `${host} is ${why}`;
}

/**
 * Equal addresses in any spelling: `::ffff:127.0.0.1`, `[::7f00:1]`, `64:ff9b::7f00:1` and `2002:7f00:1::` are
 * 127.0.0.1 (see canonicalAddress), `0:0::1` is `::1`. A connection to the unspecified address reaches this host on
 * Linux, so 0.0.0.0 and `::` count as loopback.
 */
function sameAddress(a: string, b: string): boolean {
  const keys = new Set(withLoopback(b));
  return withLoopback(a).some((key) => keys.has(key));
}

const UNSPECIFIED = new Set([canonicalAddress("0.0.0.0"), canonicalAddress("::")]);
const LOOPBACK = [canonicalAddress("127.0.0.1"), canonicalAddress("::1")];

function withLoopback(address: string): Array<string | undefined> {
  const key = canonicalAddress(address);
  return UNSPECIFIED.has(key) ? [key, ...LOOPBACK] : [key];
}

function normalise(host: string): string {
  const bare = host
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "")
    .toLowerCase();
  return isIP(bare) ? bare : bare.replace(/\.$/, "");
}
