import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCellCa, makeCellCa } from "./cell-ca.js";

describe("createCellCa", () => {
  const now = new Date("2026-11-28T00:00:00Z");
  const ca = createCellCa({ now, validDays: 2 });
  const root = new X509Certificate(ca.certPem);

  it("is a short-lived CA named as the cell's egress CA, whose certificate carries no key", () => {
    expect(root.ca).toBe(true);
    expect(root.subject).toContain("CN=IronClaw cell egress CA");
    expect(new Date(root.validTo).getTime() - now.getTime()).toBe(2 * 86_400_000);
    expect(root.verify(root.publicKey)).toBe(true);
    expect(ca.certPem).not.toMatch(/PRIVATE KEY/);
  });

  it("signs a leaf whose only name is the host, cached per host", () => {
    const leaf = ca.leafFor("API.Example.test");
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.subjectAltName).toBe("DNS:api.example.test");
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(root)).toBe(true);
    expect(cert.verify(root.publicKey)).toBe(true);
    expect(cert.checkHost("api.example.test")).toBe("api.example.test");
    expect(cert.checkHost("other.example.test")).toBeUndefined();
    expect(ca.leafFor("api.example.test")).toBe(leaf);
    expect(ca.leafFor("other.example.test").certPem).not.toBe(leaf.certPem);
  });

  it("two cells' CAs do not vouch for each other's leaves", () => {
    const other = createCellCa({ now });
    const cert = new X509Certificate(other.leafFor("api.example.test").certPem);
    expect(cert.verify(root.publicKey)).toBe(false);
  });

  it("is made the same way off the event loop: timers keep firing while its key is generated", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      const made = await makeCellCa({ now });
      const madeRoot = new X509Certificate(made.certPem);
      expect(madeRoot.ca).toBe(true);
      expect(new X509Certificate(made.leafFor("api.example.test").certPem).verify(madeRoot.publicKey)).toBe(
        true,
      );
    } finally {
      clearInterval(timer);
    }
    // An RSA key takes tens of milliseconds at least; a key made on this thread would have let no timer fire.
    expect(ticks).toBeGreaterThan(0);
  });
});
