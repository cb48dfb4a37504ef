import { gzipSync } from "node:zlib";

/** One entry of an initramfs. Modes are full st_mode values (type bits included). */
export type CpioEntry =
  | { kind: "dir"; path: string; mode?: number }
  | { kind: "file"; path: string; data: Buffer; mode?: number }
  | { kind: "symlink"; path: string; target: string };

const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

/**
 * A gzip-compressed cpio archive in the `newc` format the kernel unpacks as an initramfs. Written here rather
 * than by the cpio tool so the archive is byte-for-byte reproducible (fixed owners and times).
 */
export function buildInitramfs(entries: CpioEntry[]): Buffer {
  const parts: Buffer[] = [];
  let ino = 1;
  for (const entry of entries) {
    const name = entry.path.replace(/^\/+/, "");
    if (entry.kind === "dir")
      parts.push(record(ino++, S_IFDIR | (entry.mode ?? 0o755), name, Buffer.alloc(0), 2));
    else if (entry.kind === "file")
      parts.push(record(ino++, S_IFREG | (entry.mode ?? 0o644), name, entry.data, 1));
    else parts.push(record(ino++, S_IFLNK | 0o777, name, Buffer.from(entry.target), 1));
  }
  parts.push(record(0, 0, "TRAILER!!!", Buffer.alloc(0), 1));
  return gzipSync(Buffer.concat(parts), { level: 6 });
}

function record(ino: number, mode: number, name: string, data: Buffer, nlink: number): Buffer {
  const nameBytes = Buffer.from(`${name}\0`);
  const fields = [ino, mode, 0, 0, nlink, 0, data.length, 0, 0, 0, 0, nameBytes.length, 0];
  const header = Buffer.from(`070701${fields.map((f) => f.toString(16).padStart(8, "0")).join("")}`);
  return Buffer.concat([header, nameBytes, pad(header.length + nameBytes.length), data, pad(data.length)]);
}

function pad(length: number): Buffer {
  return Buffer.alloc((4 - (length % 4)) % 4);
}
