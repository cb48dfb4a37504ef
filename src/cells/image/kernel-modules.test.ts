import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { buildInitramfs } from "./cpio-archive.js";
import { moduleDepends, resolveModules } from "./kernel-modules.js";

/** A stand-in .ko: what matters to the resolver is the .modinfo `depends=` string. */
const ko = (depends: string) => Buffer.from(`\u007fELF...\0license=GPL\0depends=${depends}\0vermagic=6.1\0`);

let dir = "";
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("kernel modules", () => {
  it("reads the depends list of a module, with dashes normalised", () => {
    expect(moduleDepends(ko("virtio,virtio_ring"))).toEqual(["virtio", "virtio_ring"]);
    expect(moduleDepends(ko("rng-core"))).toEqual(["rng_core"]);
    expect(moduleDepends(ko(""))).toEqual([]);
  });

  it("orders modules so that every dependency loads first", async () => {
    dir = await mkdtemp(join(tmpdir(), "ironclaw-modules-"));
    await mkdir(join(dir, "kernel/drivers/virtio"), { recursive: true });
    await mkdir(join(dir, "kernel/drivers/block"), { recursive: true });
    await writeFile(join(dir, "kernel/drivers/virtio/virtio_ring.ko"), ko(""));
    await writeFile(join(dir, "kernel/drivers/virtio/virtio.ko"), ko("virtio_ring"));
    await writeFile(join(dir, "kernel/drivers/virtio/virtio_mmio.ko"), ko("virtio,virtio_ring"));
    await writeFile(join(dir, "kernel/drivers/block/virtio_blk.ko"), ko("virtio,virtio_ring"));
    const order = await resolveModules(dir, ["virtio_mmio", "virtio_blk"]);
    expect(order.map((m) => m.name)).toEqual(["virtio_ring", "virtio", "virtio_mmio", "virtio_blk"]);
  });

  it("names a module that is missing", async () => {
    dir = await mkdtemp(join(tmpdir(), "ironclaw-modules-"));
    await expect(resolveModules(dir, ["virtio_console"])).rejects.toThrow("virtio_console not found");
  });
});

describe("initramfs archive", () => {
  it("writes newc records padded to 4 bytes and ends with the trailer", () => {
    const archive = gunzipSync(
      buildInitramfs([
        { kind: "dir", path: "bin" },
        { kind: "file", path: "init", data: Buffer.from("#!/bin/sh\n"), mode: 0o755 },
        { kind: "symlink", path: "bin/sh", target: "busybox" },
      ]),
    );
    const text = archive.toString("latin1");
    expect(text.startsWith("070701")).toBe(true);
    expect(text).toContain("init\0");
    expect(text).toContain("#!/bin/sh\n");
    expect(text).toContain("TRAILER!!!\0");
    expect(archive.length % 4).toBe(0);
    // The file's mode field (the second of thirteen 8-hex fields) marks a regular executable.
    const at = text.indexOf("070701", text.indexOf("bin\0"));
    expect(text.slice(at + 14, at + 22)).toBe((0o100755).toString(16).padStart(8, "0"));
  });
});
