import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { checkedAddress } from "./checked-address.js";
import type { EgressDial } from "./guarded-fetch.js";

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
