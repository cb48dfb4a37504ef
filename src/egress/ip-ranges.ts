import { type NetworkInterfaceInfo, networkInterfaces } from "node:os";
import { canonicalAddress, privateRangeRefusal } from "../contracts/index.js";

/**
 * Why the browser may not reach `address` unless private targets are allowed, or undefined when it may: an
 * address bound to one of this host's interfaces (read again on every call, so an address added since is seen;
 * a public one leads straight back to the host's own services), then the private ranges (contracts).
 */
export function addressRefusal(
  address: string,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): string | undefined {
  const own = interfaceOf(address, interfaces);
  if (own !== undefined) return `an address of this host (${own})`;
  return privateRangeRefusal(address);
}

/** The name of the non-loopback interface `address` (in any spelling, embedded forms too) is bound to. */
export function interfaceOf(
  address: string,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): string | undefined {
  const key = canonicalAddress(address);
  if (key === undefined) return undefined;
  for (const [name, infos] of Object.entries(interfaces))
    for (const info of infos ?? []) {
      // Loopback interfaces are the loopback ranges' business, which name them better.
      if (!info.internal && canonicalAddress(info.address) === key) return name;
    }
  return undefined;
}
