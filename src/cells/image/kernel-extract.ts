import { gunzipSync } from "node:zlib";

/*
 * Why the image boots an uncompressed kernel. A bzImage decompresses itself in the guest before the kernel
 * runs; under TCG that is seconds of emulated memcpy (Debian's cloud kernel: 50 MB of LZ4). QEMU boots the
 * ELF vmlinux inside it directly through its PVH entry (CONFIG_PVH), so the image carries that instead,
 * unpacked once on the host. Any kernel this cannot unpack (an unknown compression, no PVH note) is
 * kept as the bzImage it was: slower to boot, never broken.
 */

export type KernelUnpack =
  | { kind: "elf"; data: Buffer; compression: string }
  | { kind: "bzimage"; reason: string };

/** The PVH-bootable ELF kernel inside a bzImage, or why the bzImage must be booted as it is. */
export function unpackKernel(bzImage: Buffer): KernelUnpack {
  if (bzImage.length < 0x270 || bzImage.toString("latin1", 0x202, 0x206) !== "HdrS")
    return { kind: "bzimage", reason: "not a bzImage (no HdrS setup header)" };
  const setupSectors = bzImage.readUInt8(0x1f1) || 4;
  const payloadOffset = bzImage.readUInt32LE(0x248);
  const payloadLength = bzImage.readUInt32LE(0x24c);
  const start = (setupSectors + 1) * 512 + payloadOffset;
  const payload = bzImage.subarray(start, start + payloadLength);
  if (payload.length !== payloadLength || payloadLength < 8)
    return { kind: "bzimage", reason: "the payload lies outside the file" };
  let data: Buffer;
  let compression: string;
  if (payload.readUInt32LE(0) === LZ4_LEGACY_MAGIC) {
    compression = "lz4";
    data = unpackLz4Legacy(payload);
  } else if (payload[0] === 0x1f && payload[1] === 0x8b) {
    compression = "gzip";
    data = gunzipSync(payload);
  } else {
    return {
      kind: "bzimage",
      reason: `compressed with ${payload.subarray(0, 4).toString("hex")}, not lz4 or gzip`,
    };
  }
  if (!hasPvhEntry(data)) return { kind: "bzimage", reason: "the kernel has no PVH entry (CONFIG_PVH)" };
  return { kind: "elf", data, compression };
}

const LZ4_LEGACY_MAGIC = 0x184c2102;

/**
 * The kernel's LZ4 "legacy" framing: the magic, then blocks each prefixed by its compressed length; the
 * kernel's build appends the unpacked size as the last four bytes.
 */
export function unpackLz4Legacy(payload: Buffer): Buffer {
  const size = payload.readUInt32LE(payload.length - 4);
  const out = Buffer.alloc(size);
  let ip = 4;
  let op = 0;
  while (ip + 4 < payload.length) {
    const blockLength = payload.readUInt32LE(ip);
    ip += 4;
    if (blockLength === LZ4_LEGACY_MAGIC) continue; // a concatenated stream starts again
    if (ip + blockLength > payload.length) throw new Error("lz4 block runs past the kernel payload");
    op = unpackLz4Block(payload, ip, ip + blockLength, out, op);
    ip += blockLength;
  }
  if (op !== size) throw new Error(`lz4 kernel unpacked to ${op} bytes, the trailer says ${size}`);
  return out;
}

/** One LZ4 block (sequences of literals and back-references), written at `op`; returns the new end. */
function unpackLz4Block(src: Buffer, start: number, end: number, out: Buffer, at: number): number {
  let ip = start;
  let op = at;
  const length = (initial: number): number => {
    let n = initial;
    if (n === 15) {
      let byte: number;
      do {
        byte = src[ip++] ?? 0;
        n += byte;
      } while (byte === 255);
    }
    return n;
  };
  while (ip < end) {
    const token = src[ip++] ?? 0;
    const literals = length(token >> 4);
    if (op + literals > out.length || ip + literals > end) throw new Error("lz4 literals overrun");
    src.copy(out, op, ip, ip + literals);
    ip += literals;
    op += literals;
    if (ip >= end) break; // the last sequence has literals only
    const offset = (src[ip] ?? 0) | ((src[ip + 1] ?? 0) << 8);
    ip += 2;
    const match = length(token & 15) + 4;
    if (offset === 0 || offset > op || op + match > out.length) throw new Error("lz4 match out of range");
    if (offset >= match) out.copyWithin(op, op - offset, op - offset + match);
    else for (let i = 0; i < match; i++) out[op + i] = out[op - offset + i] ?? 0;
    op += match;
  }
  return op;
}

/** An ELF64 note `Xen` of type XEN_ELFNOTE_PHYS32_ENTRY (18): the entry QEMU's PVH boot jumps to. */
export function hasPvhEntry(elf: Buffer): boolean {
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2) return false;
  const phoff = Number(elf.readBigUInt64LE(0x20));
  const phentsize = elf.readUInt16LE(0x36);
  const phnum = elf.readUInt16LE(0x38);
  for (let i = 0; i < phnum; i++) {
    const ph = phoff + i * phentsize;
    if (ph + 56 > elf.length || elf.readUInt32LE(ph) !== 4) continue; // PT_NOTE
    const offset = Number(elf.readBigUInt64LE(ph + 8));
    const end = Math.min(elf.length, offset + Number(elf.readBigUInt64LE(ph + 32)));
    for (let n = offset; n + 12 <= end; ) {
      const nameSize = elf.readUInt32LE(n);
      const descSize = elf.readUInt32LE(n + 4);
      const type = elf.readUInt32LE(n + 8);
      if (type === 18 && elf.toString("latin1", n + 12, n + 12 + nameSize).startsWith("Xen")) return true;
      n += 12 + align4(nameSize) + align4(descSize);
    }
  }
  return false;
}

const align4 = (n: number) => (n + 3) & ~3;
