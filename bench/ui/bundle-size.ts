import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export interface BundleSize {
  files: { name: string; bytes: number; gzip: number }[];
  /** What the first paint loads: index.html and what it references (the chat). */
  initial: { bytes: number; gzip: number };
  total: { bytes: number; gzip: number };
}

/** Sizes of the built UI (ui/dist), raw and gzip (level 9), in total and for the first load. */
export function measureBundle(dist: string): BundleSize {
  const html = readFileSync(join(dist, "index.html"));
  const names = readdirSync(join(dist, "assets")).filter((n) => /\.(js|css)$/.test(n));
  const files = [
    { name: "index.html", data: html },
    ...names.map((name) => ({ name: `assets/${name}`, data: readFileSync(join(dist, "assets", name)) })),
  ].map(({ name, data }) => ({ name, bytes: data.length, gzip: gzipSync(data, { level: 9 }).length }));
  const referenced = new Set([
    "index.html",
    ...[...html.toString().matchAll(/"\.\/(assets\/[^"]+)"/g)].map((m) => m[1]),
  ]);
  const sum = (list: typeof files) => ({
    bytes: list.reduce((s, f) => s + f.bytes, 0),
    gzip: list.reduce((s, f) => s + f.gzip, 0),
  });
  return { files, initial: sum(files.filter((f) => referenced.has(f.name))), total: sum(files) };
}
