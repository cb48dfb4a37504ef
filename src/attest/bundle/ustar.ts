import { InvalidInputError } from "../../core/index.js";

/**
 * The few parts of POSIX ustar a state bundle needs: regular files and directories, nothing else. Written
 * deterministically (entries in the order given, mode 0644/0755, uid/gid 0, mtime 0, no user names), so the
 * same tree always gives the same bytes; read strictly, since a bundle may come from another machine.
 */
export interface TarEntry {
  path: string;
  type: "file" | "dir";
  /** Empty for a directory. */
  data: Buffer;
}

const BLOCK = 512;
const FILE_TYPES = new Set(["0", "\0"]);
const LINK_TYPES: Record<string, string> = { "1": "a hard link", "2": "a symbolic link" };

export function writeTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    checkEntryPath(entry.path);
    const data = entry.type === "dir" ? Buffer.alloc(0) : entry.data;
    parts.push(header(entry, data.length), data, Buffer.alloc(padding(data.length)));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** Every entry of a tar, after refusing links, special files, escaping paths, duplicates and bad checksums. */
export function readTar(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  const seen = new Set<string>();
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const block = tar.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) return entries;
    if (octal(block, 148, 8) !== checksum(block))
      throw refusal(`at byte ${offset}`, "has a bad header checksum");
    const name = text(block, 0, 100);
    const prefix = text(block, 345, 155);
    const path = prefix === "" ? name : `${prefix}/${name}`;
    const flag = String.fromCharCode(block[156] ?? 0);
    const link = LINK_TYPES[flag];
    if (link) throw refusal(path, `is ${link}; a state bundle holds only files and directories`);
    if (!FILE_TYPES.has(flag) && flag !== "5")
      throw refusal(path, `has entry type '${flag}'; a state bundle holds only files and directories`);
    const type = flag === "5" ? "dir" : "file";
    const clean = checkEntryPath(type === "dir" ? path.replace(/\/$/, "") : path);
    if (seen.has(clean)) throw refusal(clean, "appears twice in the bundle");
    seen.add(clean);
    const size = type === "dir" ? 0 : octal(block, 124, 12);
    const start = offset + BLOCK;
    if (start + size > tar.length) throw refusal(clean, "runs past the end of the tar");
    entries.push({ path: clean, type, data: Buffer.from(tar.subarray(start, start + size)) });
    offset = start + size + padding(size);
  }
  throw refusal("the tar", "ends without its two zero blocks");
}

/** A relative `/`-separated path of plain names: no `..`, no `.`, not absolute, no NUL or backslash. */
export function checkEntryPath(path: string): string {
  if (path === "") throw refusal("(empty)", "is an empty entry path");
  if (path.startsWith("/")) throw refusal(path, "is an absolute path; entries must stay inside the brain");
  if (path.includes("\0") || path.includes("\\")) throw refusal(path, "contains a NUL byte or a backslash");
  const parts = path.split("/");
  if (parts.includes("..")) throw refusal(path, "contains .., which would leave the target directory");
  if (parts.some((p) => p === "" || p === "."))
    throw refusal(path, "has an empty or '.' component; entry paths must be plain");
  return path;
}

function header(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const [prefix, name] = splitName(entry.type === "dir" ? `${entry.path}/` : entry.path);
  block.write(name, 0, 100, "utf8");
  writeOctal(block, 100, 8, entry.type === "dir" ? 0o755 : 0o644);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 0);
  block.write(entry.type === "dir" ? "5" : "0", 156, 1, "ascii");
  block.write("ustar\0", 257, 6, "ascii");
  block.write("00", 263, 2, "ascii");
  block.write(prefix, 345, 155, "utf8");
  // The checksum is summed with its own field as spaces, then written as six octal digits, NUL, space.
  block.write(`${checksum(block).toString(8).padStart(6, "0")}\0 `, 148, 8, "ascii");
  return block;
}

/** ustar keeps up to 100 bytes of name and 155 of prefix, split at a slash. */
function splitName(path: string): [string, string] {
  if (Buffer.byteLength(path) <= 100) return ["", path];
  for (let cut = path.indexOf("/"); cut !== -1; cut = path.indexOf("/", cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name !== "")
      return [prefix, name];
  }
  throw refusal(path, "is too long for a ustar entry (100 bytes of name, 155 of directories)");
}

function checksum(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  return sum;
}

function writeOctal(block: Buffer, at: number, width: number, value: number): void {
  block.write(`${value.toString(8).padStart(width - 1, "0")}\0`, at, width, "ascii");
}

function octal(block: Buffer, at: number, width: number): number {
  const digits = text(block, at, width).trim();
  if (!/^[0-7]*$/.test(digits)) throw refusal(`header field at ${at}`, "is not an octal number");
  return digits === "" ? 0 : Number.parseInt(digits, 8);
}

function text(block: Buffer, at: number, width: number): string {
  const field = block.subarray(at, at + width);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? width : end).toString("utf8");
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

function refusal(path: string, rule: string): InvalidInputError {
  return new InvalidInputError(`bundle entry ${path}`, rule);
}
