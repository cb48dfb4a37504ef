import { describe, expect, it } from "vitest";
import { hostRefusal, matchesHost, parseFetchUrl, targetRefusal } from "./host-patterns.js";

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
    expect(hostRefusal("good.example.org", policy)).toBeUndefined();
    expect(hostRefusal("bad.example.org", policy)).toBe("host bad.example.org is on the deny list");
    expect(hostRefusal("x.bad.example.org", { ...policy, denyHosts: ["*.bad.example.org"] })).toBe(
      "host x.bad.example.org is on the deny list (*.bad.example.org)",
    );
    expect(hostRefusal("example.com", policy)).toBe(
      "host example.com is not on the allow list (network egress is deny by default)",
    );
  });

  it("refuse other schemes and address literals in the private ranges unless private targets are allowed", () => {
    expect(parseFetchUrl("file:///etc/passwd")).toEqual({
      refusal: "file: URLs are not fetched; use http or https",
    });
    expect(parseFetchUrl("not a url")).toEqual({ refusal: "not a url is not a URL" });
    const open = { egress: "allow" as const, allowHosts: [], denyHosts: [], allowPrivate: false };
    const url = (text: string) => new URL(text);
    expect(targetRefusal(url("http://[::ffff:7f00:1]/"), open)).toBe(
      "::ffff:7f00:1 is a private, loopback or link-local address",
    );
    expect(targetRefusal(url("http://127.0.0.1/"), { ...open, allowPrivate: true })).toBeUndefined();
    expect(targetRefusal(url("http://localhost/"), open)).toBeUndefined();
    expect(targetRefusal(url("https://93.184.215.14/"), open)).toBeUndefined();
  });
});
