import { isIP } from "node:net";
import { ToolRefusal } from "./tool-definition.js";

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
  if (p.startsWith("*.")) return h.endsWith(p.slice(1));
  return h === p;
}

/** Throws a ToolRefusal naming the rule when the policy does not let the browser reach `host`. */
export function checkHost(host: string, policy: HostPolicy): void {
  if (policy.denyHosts.some((p) => matchesHost(host, p))) {
    throw new ToolRefusal(`host ${host} is on the deny list`);
  }
  if (policy.egress === "deny" && !policy.allowHosts.some((p) => matchesHost(host, p))) {
    throw new ToolRefusal(`host ${host} is not on the allow list (network egress is deny by default)`);
  }
}

function normalise(host: string): string {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return isIP(bare) ? bare : bare.replace(/\.$/, "");
}
