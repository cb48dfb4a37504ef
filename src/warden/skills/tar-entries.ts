/**
 * A reader of tar archives (POSIX ustar, pax extended headers, GNU long names) that yields entries as data and
 * never touches the disk: what an entry claims to be (a link, a device, `../x`) is for the caller to judge.
 */

export type TarEntryType = "file" | "dir" | "hardlink" | "symlink" | "device" | "fifo" | "other";

export interface TarEntry {
  path: string;
  type: TarEntryType;
  /** The link's target for links, as written in the archive. */
  linkTarget?: string;
  data: Buffer;
}

const BLOCK = 512;

export class TarFormatError extends Error {
  override readonly name = "TarFormatError";
}

/** Every entry of an archive held in memory, in order. Throws TarFormatError when the bytes are not a tar. */
export function readTarEntries(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break; // the end-of-archive marker
    checkChecksum(header, offset);
    const size = readSize(header, offset);
    const start = offset + BLOCK;
    if (start + size > archive.length)
      throw new TarFormatError(`entry at byte ${offset} runs past the archive's end`);
    const data = archive.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
    const flag = String.fromCharCode(header[156] ?? 0);
    if (flag === "L") {
      longName = cString(data);
      continue;
    }
    if (flag === "x") {
      paxPath = paxRecords(data).get("path") ?? paxPath;
      continue;
    }
    if (flag === "g" || flag === "K") continue; // global pax defaults, GNU long link names: nothing we use
    const path = paxPath ?? longName ?? ustarName(header);
    longName = undefined;
    paxPath = undefined;
    const type = typeOf(flag);
    const linkTarget = type === "hardlink" || type === "symlink" ? field(header, 157, 100) : undefined;
    entries.push({ path, type, data, ...(linkTarget === undefined ? {} : { linkTarget }) });
  }
  return entries;
}

function typeOf(flag: string): TarEntryType {
  switch (flag) {
    case "0":
    case "\0":
    case "7":
      return "file";
    case "5":
      return "dir";
    case "1":
      return "hardlink";
    case "2":
      return "symlink";
    case "3":
    case "4":
      return "device";
    case "6":
      return "fifo";
    default:
      return "other";
  }
}

function ustarName(header: Buffer): string {
  const name = field(header, 0, 100);
  const isUstar = header.subarray(257, 262).toString("latin1") === "ustar";
  const prefix = isUstar ? field(header, 345, 155) : "";
  return prefix === "" ? name : `${prefix}/${name}`;
}

function field(header: Buffer, at: number, length: number): string {
  return cString(header.subarray(at, at + length));
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? bytes.length : end).toString("utf8");
}

function readSize(header: Buffer, offset: number): number {
  const raw = header.subarray(124, 136);
  // Base-256 sizes (high bit set) mean an entry of 8 GiB or more: far past any limit, so it is not decoded.
  if (((raw[0] ?? 0) & 0x80) !== 0) throw new TarFormatError(`entry at byte ${offset} is larger than 8 GiB`);
  const text = cString(raw).trim();
  if (!/^[0-7]*$/.test(text)) throw new TarFormatError(`entry at byte ${offset} has a malformed size`);
  return text === "" ? 0 : Number.parseInt(text, 8);
}

function checkChecksum(header: Buffer, offset: number): void {
  const stored = Number.parseInt(cString(header.subarray(148, 156)).trim(), 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
  if (stored !== sum)
    throw new TarFormatError(`header at byte ${offset} has a bad checksum: not a tar archive`);
}

/** pax records: `<length> <key>=<value>\n`, repeated. */
function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = Number.parseInt(data.subarray(at, space).toString("latin1"), 10);
    if (space < 0 || !Number.isInteger(length) || length <= 0 || at + length > data.length)
      throw new TarFormatError("malformed pax extended header");
    const record = data.subarray(space + 1, at + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) records.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return records;
}
