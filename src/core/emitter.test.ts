import { describe, expect, it } from "vitest";
import { Emitter } from "./emitter.js";

describe("Emitter", () => {
  it("calls every listener in subscription order until it unsubscribes", () => {
    const seen: string[] = [];
    const emitter = new Emitter<[string, number]>();
    const off = emitter.on((name, n) => seen.push(`a:${name}${n}`));
    emitter.on((name, n) => seen.push(`b:${name}${n}`));
    emitter.emit("x", 1);
    off();
    emitter.emit("y", 2);
    expect(seen).toEqual(["a:x1", "b:x1", "b:y2"]);
    expect(emitter.listenerCount).toBe(1);
  });

  it("still calls the other listeners when one throws, then rethrows the first error", () => {
    const seen: string[] = [];
    const emitter = new Emitter<[string]>();
    emitter.on(() => {
      throw new Error("first listener broke");
    });
    emitter.on((v) => seen.push(v));
    expect(() => emitter.emit("alert")).toThrow("first listener broke");
    expect(seen).toEqual(["alert"]);
  });

  it("hands listener errors to onListenerError instead of the emitter when given one", () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<[]>((error) => errors.push(error));
    emitter.on(() => {
      throw new Error("relay down");
    });
    expect(() => emitter.emit()).not.toThrow();
    expect(errors).toHaveLength(1);
  });
});
