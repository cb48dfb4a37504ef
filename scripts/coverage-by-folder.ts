// Sums V8 line coverage (coverage/coverage-summary.json, written by `npm run coverage`) per folder of src/,
// to compare a folder's coverage between two trees: `node --import tsx scripts/coverage-by-folder.ts [dir] [depth]`.
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

interface Count {
  total: number;
  covered: number;
}

const dir = process.argv[2] ?? ".";
const depth = Number(process.argv[3] ?? 1);
const summary = JSON.parse(readFileSync(join(dir, "coverage", "coverage-summary.json"), "utf8")) as Record<
  string,
  { lines: Count }
>;
const folders = new Map<string, Count>();
const add = (key: string, lines: Count) => {
  const sum = folders.get(key) ?? { total: 0, covered: 0 };
  sum.total += lines.total;
  sum.covered += lines.covered;
  folders.set(key, sum);
};
for (const [file, { lines }] of Object.entries(summary)) {
  if (file === "total") continue;
  const parts = relative(join(dir, "src"), file).split(sep);
  add(parts.slice(0, Math.min(depth, parts.length - 1)).join("/") || ".", lines);
  add("(all of src)", lines);
}
const percent = (c: Count) => (c.total === 0 ? "-" : `${((100 * c.covered) / c.total).toFixed(1)}%`);
for (const [folder, count] of [...folders].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(
    `${percent(count).padStart(7)}  ${String(count.covered).padStart(6)}/${String(count.total).padEnd(6)}  ${folder}`,
  );
}
