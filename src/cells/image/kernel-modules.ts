import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The virtio drivers a microvm guest needs, which Debian's cloud kernel builds as modules: the transport
 * (virtio-mmio, what `-M microvm` exposes), the block driver for the rootfs and brain disks, and the console
 * driver for the virtio-serial channel, and the entropy source: without it the kernel's random pool takes
 * seconds to initialise under emulation and node's startup waits for it.
 */
export const GUEST_MODULES = ["virtio_mmio", "virtio_blk", "virtio_console", "virtio_rng"];

export interface KernelModule {
  name: string;
  file: string;
  depends: string[];
}

/** Finds each wanted module and its dependencies under lib/modules/<version>, in load order. */
export async function resolveModules(modulesDir: string, wanted: string[]): Promise<KernelModule[]> {
  const files = await indexModules(modulesDir);
  const ordered: KernelModule[] = [];
  const visiting = new Set<string>();
  const visit = async (name: string): Promise<void> => {
    if (ordered.some((m) => m.name === name)) return;
    if (visiting.has(name)) throw new Error(`kernel module dependency cycle at ${name}`);
    visiting.add(name);
    const file = files.get(name);
    if (!file) {
      const builtin = await readFile(join(modulesDir, "modules.builtin"), "utf8").catch(() => "");
      if (builtin.includes(`/${name}.ko`)) return; // built into the kernel: nothing to load
      throw new Error(`kernel module ${name} not found under ${modulesDir}`);
    }
    const depends = moduleDepends(await readFile(file));
    for (const dep of depends) await visit(dep);
    visiting.delete(name);
    ordered.push({ name, file, depends });
  };
  for (const name of wanted) await visit(name);
  return ordered;
}

/** The `depends=` entry of a module's .modinfo section: the modules that must be loaded first. */
export function moduleDepends(ko: Buffer): string[] {
  const start = ko.indexOf("\0depends=");
  if (start < 0) return [];
  const from = start + "\0depends=".length;
  const end = ko.indexOf(0, from);
  const list = ko.subarray(from, end < 0 ? undefined : end).toString("utf8");
  return list ? list.split(",").map((d) => d.replaceAll("-", "_")) : [];
}

async function indexModules(modulesDir: string): Promise<Map<string, string>> {
  const index = new Map<string, string>();
  for (const entry of await readdir(modulesDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    if (/\.ko\.(xz|zst|gz)$/.test(entry.name)) {
      const name = entry.name.replace(/\.ko\..*$/, "").replaceAll("-", "_");
      if (!index.has(name)) index.set(name, `compressed:${join(entry.parentPath, entry.name)}`);
    }
    if (!entry.name.endsWith(".ko")) continue;
    index.set(entry.name.slice(0, -3).replaceAll("-", "_"), join(entry.parentPath, entry.name));
  }
  for (const [name, file] of index) {
    if (file.startsWith("compressed:")) {
      throw new Error(
        `kernel module ${name} is compressed (${file.slice(11)}); busybox insmod needs plain .ko files`,
      );
    }
  }
  return index;
}
