import { EgressRefusal } from "./egress-refusal.js";
import { addressRefusal } from "./ip-ranges.js";

/**
 * The address to dial among what one resolution of `host` returned: every address is checked (a connection may
 * fall back to any of them) and the first is returned, so the connection goes where the check looked and a name
 * cannot pass with a public address and then be dialled at 127.0.0.1 (DNS rebinding).
 */
export function checkedAddress(host: string, addresses: readonly string[], allowPrivate: boolean): string {
  const [first] = addresses;
  if (first === undefined) throw new EgressRefusal(`${host} has no addresses`);
  if (!allowPrivate)
    for (const address of addresses) {
      const why = addressRefusal(address);
      if (why !== undefined) throw new EgressRefusal(`${host} resolves to ${address}, ${why}`);
    }
  return first;
}
