import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PLACEHOLDER_PREFIX, PlaceholderBook } from "./placeholder-book.js";

const key = randomBytes(32);
const book = () => new PlaceholderBook(() => key);

describe("PlaceholderBook", () => {
  it("resolves a placeholder to its secret's name only in the cell it was minted for", () => {
    const b = book();
    const placeholder = b.mint("cell-a", "GITHUB_TOKEN");
    expect(b.resolve("cell-a", placeholder)).toBe("GITHUB_TOKEN");
    expect(b.resolve("cell-b", placeholder)).toBeUndefined();
    // The same cell asking again (a restarted shell) sees the same placeholder.
    expect(b.mint("cell-a", "GITHUB_TOKEN")).toBe(placeholder);
  });

  it("reveals neither the name nor any part of the value, and differs between cells", () => {
    const b = book();
    const value = "ghp_abcdefghijklmnopqrstuvwxyz012345";
    const first = b.mint("cell-a", "GITHUB_TOKEN");
    const second = b.mint("cell-b", "GITHUB_TOKEN");
    expect(first).not.toBe(second);
    for (const placeholder of [first, second]) {
      expect(placeholder).toMatch(new RegExp(`^${PLACEHOLDER_PREFIX}[A-Za-z0-9_-]{64}$`));
      const body = placeholder.slice(PLACEHOLDER_PREFIX.length);
      const decoded = Buffer.from(body, "base64url").toString("latin1");
      for (const text of [body, decoded, placeholder.toLowerCase()]) {
        expect(text).not.toContain("GITHUB");
        expect(text.toLowerCase()).not.toContain("token");
        expect(text).not.toContain(value.slice(0, 4));
      }
    }
    // Two secrets of one cell get unrelated placeholders too: nothing in them follows the name.
    expect(b.mint("cell-a", "OTHER_TOKEN").slice(0, 20)).not.toBe(first.slice(0, 20));
  });

  it("resolves nothing for a forged, altered or foreign-key placeholder", () => {
    const b = book();
    const placeholder = b.mint("cell-a", "GITHUB_TOKEN");
    const last = placeholder.at(-1) === "A" ? "B" : "A";
    expect(b.resolve("cell-a", placeholder.slice(0, -1) + last)).toBeUndefined();
    expect(b.resolve("cell-a", `${PLACEHOLDER_PREFIX}${"A".repeat(64)}`)).toBeUndefined();
    expect(b.resolve("cell-a", "GITHUB_TOKEN")).toBeUndefined();
    // Another warden (another key) minted it: its tag does not verify here.
    const other = new PlaceholderBook(() => randomBytes(32));
    expect(b.resolve("cell-a", other.mint("cell-a", "GITHUB_TOKEN"))).toBeUndefined();
  });

  it("forgets a cell's placeholders when the cell stops", () => {
    const b = book();
    const placeholder = b.mint("cell-a", "GITHUB_TOKEN");
    b.forgetCell("cell-a");
    expect(b.resolve("cell-a", placeholder)).toBeUndefined();
    expect(b.mint("cell-a", "GITHUB_TOKEN")).not.toBe(placeholder);
  });
});
