import { isIP } from "node:net";
import { ToolRefusal } from "../agent/tools/tool-definition.js";
import { canonicalAddress } from "./ip-ranges.js";

/**
 * Which hosts the browser may fetch (irowclaw.toml `[tools.network]`): under `deny` egress only hosts on the
 * allow list, under `allow` any host not on the deny list. The deny list wins in both modes.
 */
export interface HostPolicy {
  egress: "deny" | "allow";
  allowHosts: string[];
  denyHosts: string[];
  /** Loopback, LAN and link-local targets stay refused unless this is set (tests, a deliberate local service). */
  allowPrivate: boolean;
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
 * Throws a ToolRefusal naming the rule when the policy does not let the browser reach `host`. This sees only
 * the name (or literal) in the URL; a name's addresses are checked by checkAddress inside the lookup the
 * connection uses (page-fetch.ts), so `localhost` cannot pass a deny of 127.0.0.1.
 */
export function checkHost(host: string, policy: HostPolicy): void {
  const denied = policy.denyHosts.find((p) => matchesHost(host, p));
  if (denied !== undefined) {
    throw new ToolRefusal(
      `host ${host} is on the deny list${normalise(denied) === normalise(host) ? "" : ` (${denied})`}`,
    );
  }
  if (policy.egress === "deny" && !policy.allowHosts.some((p) => matchesHost(host, p))) {
    throw new ToolRefusal(`host ${host} is not on the allow list (network egress is deny by default)`);
  }
}

/**
 * Throws a ToolRefusal when an address a host name resolved to is on the deny list. Only the deny list is
 * compared by address: it must catch every way to reach a denied address (another name, an IPv4-mapped IPv6
 * form, 0.0.0.0), while the allow list grants exactly the names it lists.
 */
export function checkAddress(hostname: string, address: string, policy: HostPolicy): void {
  const denied = deniedBy(address, policy.denyHosts);
  if (denied !== undefined)
    throw new ToolRefusal(`${hostname} resolves to ${address}, which is on the deny list (${denied})`);
}

function deniedBy(address: string, patterns: readonly string[]): string | undefined {
  const bare = normalise(address);
  if (isIP(bare) === 0) return undefined;
  return patterns.find((p) => isIP(normalise(p)) !== 0 && sameAddress(bare, normalise(p)));
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
