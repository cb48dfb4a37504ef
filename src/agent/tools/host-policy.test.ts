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
