import { type NetworkInterfaceInfo, networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { isPrivateAddress } from "../contracts/index.js";
import { addressRefusal, interfaceOf } from "./ip-ranges.js";

const PRIVATE = "a private, loopback or link-local address";

describe("IPv6 forms that embed an IPv4 address", () => {
  it.each([
    ["::7f00:1", "an IPv4-compatible IPv6 address (::/96)"],
    ["::127.0.0.1", "an IPv4-compatible IPv6 address (::/96)"],
    ["0:0:0:0:0:0:808:808", "an IPv4-compatible IPv6 address (::/96)"],
    ["::ffff:0:7f00:1", "an IPv4-translated IPv6 address (::ffff:0:0:0/96)"],
    ["64:ff9b:1::a00:1", "a local-use NAT64 address (64:ff9b:1::/48)"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "a Teredo address (2001::/32)"],
    ["::ffff:7f00:1", PRIVATE],
    ["0:0:0:0:0:ffff:127.0.0.1", PRIVATE],
    ["[::ffff:a00:1]", PRIVATE],
    ["64:ff9b::7f00:1", PRIVATE],
    ["64:ff9b::192.168.1.1", PRIVATE],
    ["2002:7f00:1::", PRIVATE],
    ["2002:a9fe:a9fe:1::5", PRIVATE],
  ])("%s is refused as %s", (address, why) => {
    expect(addressRefusal(address, {})).toBe(why);
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    "::ffff:808:808",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
    "2606:4700:4700::1111",
    "2001:4860::8888",
  ])("%s leads to a public address and is allowed", (address) => {
    expect(addressRefusal(address, {})).toBeUndefined();
  });

  it("keeps loopback, unspecified and the other ranges named as private", () => {
    for (const address of [
      "::1",
      "::",
      "0:0:0:0:0:0:0:1",
      "fe80::1%eth0",
      "fd00::2",
      "127.0.0.1",
      "10.0.0.1",
    ])
      expect([address, addressRefusal(address, {})]).toEqual([address, PRIVATE]);
  });

  it("does not take malformed text for an address", () => {
    for (const text of ["::ffff:999.0.0.1", "1::2::3", "1:2:3:4:5:6:7:8:9", "example.org", ""])
      expect([text, isPrivateAddress(text)]).toEqual([text, false]);
  });
});

describe("the host's own addresses", () => {
  const info = (address: string, internal = false): NetworkInterfaceInfo =>
    ({
      address,
      internal,
      family: address.includes(":") ? "IPv6" : "IPv4",
      netmask: "",
      mac: "",
      cidr: null,
      ...(address.includes(":") ? { scopeid: 0 } : {}),
    }) as NetworkInterfaceInfo;
  // A public address bound here: no range refuses it, only the interface list does.
  const interfaces = { lo: [info("127.0.0.1", true)], eth0: [info("203.0.114.7"), info("2a01:4f8::7")] };

  it("refuses every spelling of an address bound to a non-loopback interface, naming the interface", () => {
    for (const address of [
      "203.0.114.7",
      "::ffff:203.0.114.7",
      "::ffff:cb00:7207",
      "64:ff9b::cb00:7207",
      "2002:cb00:7207::1",
      "2a01:4f8:0:0:0:0:0:7",
      "[2a01:4f8::7]",
    ])
      expect([address, addressRefusal(address, interfaces)]).toEqual([
        address,
        "an address of this host (eth0)",
      ]);
    expect(addressRefusal("203.0.114.8", interfaces)).toBeUndefined();
    expect(addressRefusal("203.0.114.7", {})).toBeUndefined();
  });

  it("sees an address as soon as it is bound, and not after it is gone", () => {
    const live: Record<string, NetworkInterfaceInfo[]> = { eth0: [] };
    expect(interfaceOf("198.41.0.4", live)).toBeUndefined();
    live.eth1 = [info("198.41.0.4")];
    expect(interfaceOf("198.41.0.4", live)).toBe("eth1");
    delete live.eth1;
    expect(interfaceOf("198.41.0.4", live)).toBeUndefined();
  });

  it("reads this machine's interfaces when none are given", () => {
    const external = Object.entries(networkInterfaces())
      .flatMap(([name, infos]) => (infos ?? []).map((i) => ({ name, ...i })))
      .find((i) => !i.internal);
    if (!external) return;
    expect(addressRefusal(external.address)).toBe(`an address of this host (${external.name})`);
  });
});
