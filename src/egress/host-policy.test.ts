import { describe, expect, it } from "vitest";
import { checkHost, matchesHost } from "./host-policy.js";

describe("host patterns", () => {
  it("match exact names case-insensitively and wildcards only below the domain", () => {
    expect(matchesHost("API.GitHub.com", "api.github.com")).toBe(true);
    expect(matchesHost("en.wikipedia.org", "*.wikipedia.org")).toBe(true);
    expect(matchesHost("wikipedia.org", "*.wikipedia.org")).toBe(false);
    expect(matchesHost("evilwikipedia.org", "*.wikipedia.org")).toBe(false);
    expect(matchesHost("::1", "[::1]")).toBe(true);
  });

  it("match a denied address in every IPv6 form that leads to it, and no other address", () => {
    for (const form of [
      "::ffff:7f00:1",
      "::7f00:1",
      "::127.0.0.1",
      "64:ff9b::7f00:1",
      "2002:7f00:1::9",
      "0.0.0.0",
    ])
      expect([form, matchesHost(form, "127.0.0.1")]).toEqual([form, true]);
    for (const form of ["::1", "::", "0:0:0:0:0:0:0:1"])
      expect([form, matchesHost(form, "::1")]).toEqual([form, true]);
    for (const form of ["::7f00:2", "127.0.0.2", "::ffff:0:7f00:1", "fe80::7f00:1"])
      expect([form, matchesHost(form, "127.0.0.1")]).toEqual([form, false]);
    expect(matchesHost("::1", "127.0.0.1")).toBe(false);
  });

  it("the deny list wins over the allow list", () => {
    const policy = {
      egress: "deny" as const,
      allowHosts: ["*.example.org"],
      denyHosts: ["bad.example.org"],
      allowPrivate: false,
    };
    expect(() => checkHost("good.example.org", policy)).not.toThrow();
    expect(() => checkHost("bad.example.org", policy)).toThrow(/deny list/);
    expect(() => checkHost("example.com", policy)).toThrow(/allow list/);
  });
});
