import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { checkedAddress } from "./checked-address.js";

/**
 * How the warden dials out for a cell's user. Production: the system resolver and the system's root
 * certificates. Tests (and a lab's private mirror): `hosts` maps a real host name such as api.github.com to a
 * local address, and `extraCa` trusts the local server's CA besides the roots. One hook for every dial the
 * warden makes on a user's behalf, so a test reaches every path under the real host name.
 */
export interface EgressDial {
  hosts?: Readonly<Record<string, string>>;
  /** Tests: the local port a server listens on for a standard one (443 → an ephemeral port). */
  ports?: Readonly<Record<number, number>>;
  extraCa?: readonly string[];
}

/**
 * The one address a connection to `host` may use, for clients that dial a socket themselves (IMAP, SMTP): the
 * name resolved once (or mapped by the dial hook, for tests and private mirrors), every address checked, the first
 * returned. The caller connects to that address and verifies TLS as `host`.
 */
export async function dialAddress(
  host: string,
  options: { dial?: EgressDial | undefined; allowPrivate: boolean },
): Promise<string> {
  const mapped = options.dial?.hosts?.[host];
  const addresses = mapped
    ? [mapped]
    : isIP(host)
      ? [host]
      : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  return checkedAddress(host, addresses, options.allowPrivate);
}
