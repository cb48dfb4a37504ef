#!/usr/bin/env node
// npm run build, after build:js: bundles the inmate into dist/cell (one file and its loader), then makes its code
// caches for the flags cells start node with: none (process and microVM cells) and a default bwrap cell's, and
// a default bwrap cell's startup snapshot.
import { join } from "node:path";
import {
  bundleGuest,
  defaultCellNodeOptions,
  listCompileCaches,
  makeStartupSnapshots,
  PACKAGE_ROOT,
  snapshotNodeOptions,
  warmCompileCache,
} from "../dist/cells/index.js";

const bundle = await bundleGuest();
const kib = (n) => `${Math.round(n / 1024)} KiB`;
console.log(
  `inmate bundle: ${join(bundle.dir, bundle.entry)} (${bundle.modules} modules, ${kib(bundle.runtime_bytes)}, ${Math.round(bundle.ms)} ms)`,
);
const warmed = await warmCompileCache(bundle.dir, defaultCellNodeOptions());
for (const w of warmed) {
  const flags = w.nodeOptions || "no NODE_OPTIONS";
  // Without a cache a cell compiles the runtime itself: slower to start, never wrong. Said, not fatal.
  if (!w.ok) console.warn(`inmate code cache for ${flags} not made: ${w.detail}`);
}
console.log(`inmate code caches: ${(await listCompileCaches(bundle.dir)).join(", ") || "none"}`);
// bwrap cells start from a startup snapshot (the runtime loaded already) where one was made for their flags.
const snapshots = await makeStartupSnapshots(PACKAGE_ROOT, bundle.dir, snapshotNodeOptions());
for (const s of snapshots) {
  if (!s.ok)
    console.warn(`inmate startup snapshot for ${s.nodeOptions || "no NODE_OPTIONS"} not made: ${s.detail}`);
}
console.log(`inmate startup snapshots: ${snapshots.filter((s) => s.ok).length} of ${snapshots.length} made`);
