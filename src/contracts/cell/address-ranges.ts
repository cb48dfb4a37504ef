import { BlockList, isIP } from "node:net";

// What `allow_private = false` refuses in irowclaw.toml `[tools.browser]` and ironclawd.toml `[egress]`, and the
// one spelling of an address that host patterns compare by. The warden's egress applies these ranges to every
// address a name resolves to; a cell applies them to address literals, the only addresses it can see.

// Addresses a cell must not reach unless told to: its own host and LAN, cloud metadata (169.254.169.254),
// carrier-grade NAT, and the reserved and multicast ranges (RFC 6890).
const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(net, prefix, "ipv4");
}

const PRIVATE = "a private, loopback or link-local address";

/**
 * IPv6 ranges refused whatever follows the prefix, first match wins. Forms that embed an IPv4 address and lead
 * to it (mapped, NAT64's well-known prefix, 6to4) are judged by that address instead (see embeddedIpv4); the
 * embedded forms below are refused whole, since nothing public is reached through them and a host that routes
 * them at all (a sit tunnel, a local NAT64, a Teredo relay) may deliver them to its own or its LAN's IPv4.
 */
const V6_REFUSED = (
  [
    ["::", 128, PRIVATE],
    ["::1", 128, PRIVATE],
    // IPv4-compatible (RFC 4291 §2.5.5.1, deprecated): `[::7f00:1]` is 127.0.0.1 to a host that still routes them.
    ["::", 96, "an IPv4-compatible IPv6 address (::/96)"],
    // IPv4-translated (SIIT, RFC 2765, obsolete): only a local translator makes sense of them.
    ["::ffff:0:0:0", 96, "an IPv4-translated IPv6 address (::ffff:0:0:0/96)"],
    // Local-use NAT64 (RFC 8215): its mapping to IPv4 is the local network's, private targets included.
    ["64:ff9b:1::", 48, "a local-use NAT64 address (64:ff9b:1::/48)"],
    // Teredo (RFC 4380) tunnels to an IPv4 host hidden in the address, through whatever relay answers.
    ["2001::", 32, "a Teredo address (2001::/32)"],
    ["2001:db8::", 32, PRIVATE],
    ["100::", 64, PRIVATE],
    ["fc00::", 7, PRIVATE],
    ["fe80::", 10, PRIVATE],
    ["fec0::", 10, PRIVATE],
    ["ff00::", 8, PRIVATE],
  ] as const
).map(([net, prefix, why]) => ({ net: prefixOf(net), prefix, why }));

/**
 * True for loopback, private, link-local, unique-local, reserved and multicast addresses, and for IPv6 forms that
 * embed an IPv4 address (`::ffff:127.0.0.1`, `[::7f00:1]`, NAT64 `64:ff9b::7f00:1`, 6to4 `2002:7f00:1::`) where
 * that address is one, so they cannot slip past the IPv4 list.
 */
export function isPrivateAddress(address: string): boolean {
  return privateRangeRefusal(address) !== undefined;
}

/**
 * Why `address` is refused while private targets are not allowed (a range named in words), or undefined for a
 * public address or text that is no address. The warden also refuses its own interfaces' addresses (egress).
 */
export function privateRangeRefusal(address: string): string | undefined {
  const bare = strip(address);
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, "ipv4") ? PRIVATE : undefined;
  const bytes = family === 6 ? parseIpv6(bare) : undefined;
  if (!bytes) return undefined;
  const mapped = embeddedIpv4(bytes);
  if (mapped !== undefined) return blocked.check(mapped, "ipv4") ? PRIVATE : undefined;
  return V6_REFUSED.find((range) => inPrefix(bytes, range.net, range.prefix))?.why;
}

/**
 * The IPv4 address an IPv6 one leads to, for the forms judged by it: IPv4-mapped (::ffff:0:0/96, which a dual
 * stack socket connects to as IPv4), NAT64's well-known prefix (64:ff9b::/96, RFC 6052, translated to that IPv4
 * by the network's gateway) and 6to4 (2002::/16, RFC 3056, tunnelled to that IPv4).
 */
function embeddedIpv4(bytes: readonly number[]): string | undefined {
  if (inPrefix(bytes, MAPPED, 96) || inPrefix(bytes, NAT64, 96)) return dotted(bytes.slice(12));
  if (inPrefix(bytes, SIX_TO_FOUR, 16)) return dotted(bytes.slice(2, 6));
  return undefined;
}

const MAPPED = prefixOf("::ffff:0:0");
const NAT64 = prefixOf("64:ff9b::");
const SIX_TO_FOUR = prefixOf("2002::");
const UNSPECIFIED = prefixOf("::");

function prefixOf(net: string): number[] {
  const bytes = parseIpv6(net);
  if (!bytes) throw new Error(`${net} is not an IPv6 address`);
  return bytes;
}

/**
 * One spelling per address, or undefined for text that is none: dotted IPv4 for IPv4 and for every IPv6 form that
 * leads to one (mapped, IPv4-compatible, NAT64, 6to4), else the 16 bytes in hex. `::` and `::1` stay IPv6.
 */
export function canonicalAddress(address: string): string | undefined {
  const bare = strip(address);
  const family = isIP(bare);
  if (family === 4) return bare;
  const bytes = family === 6 ? parseIpv6(bare) : undefined;
  if (!bytes) return undefined;
  const compatible =
    inPrefix(bytes, UNSPECIFIED, 96) && bytes.slice(12).some((b, i) => (i < 3 ? b > 0 : b > 1));
  if (compatible) return dotted(bytes.slice(12));
  return embeddedIpv4(bytes) ?? bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
}

function inPrefix(bytes: readonly number[], base: readonly number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const mask = prefix - bit >= 8 ? 0xff : (0xff << (8 - (prefix - bit))) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((base[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/** The 16 bytes of an IPv6 address in any valid spelling (`::`, a dotted tail), or undefined. */
function parseIpv6(text: string): number[] | undefined {
  let source = strip(text).toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(source)?.[1];
  if (tail !== undefined) {
    if (isIP(tail) !== 4) return undefined;
    const [a = 0, b = 0, c = 0, d = 0] = tail.split(".").map(Number);
    source = `${source.slice(0, -tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = source.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string | undefined) => (part ? part.split(":") : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill("0"), ...rest];
  const bytes: number[] = [];
  for (const group of all) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return undefined;
    const value = Number.parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  return bytes;
}

function dotted(bytes: readonly number[]): string {
  return bytes.join(".");
}

function strip(address: string): string {
  return address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
}
