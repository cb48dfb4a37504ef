import { constants } from "node:fs";
import { access, chmod, copyFile, cp, mkdir, readdir, realpath, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ironclawHome, runProgram } from "../../core/index.js";
import { loadWordTable } from "../../memory/index.js";
import { GUEST_BUNDLE_DIR, readGuestBundle, WORD_VECTOR_PACKAGE } from "./guest-bundle.js";
import { type CellInitOptions, cellInit, RESUME_HELPER } from "./init-scripts.js";
import { microvmSnapshotPath } from "./microvm-snapshot.js";
import { buildResumeHelper, type ResumeHelperResult } from "./resume-helper.js";

export interface StageOptions extends Omit<CellInitOptions, "snapshotBlob"> {
  stageDir: string;
  /** Where the host keeps (or builds) the built-in embedder's word table; default IRONCLAW_HOME. */
  embeddingsHome?: string;
  packageRoot: string;
  nodeBinary: string;
  busybox: string;
}

/**
 * Lays out the cell's root file system in a directory (mkfs.ext4 -d turns it into the image): merged /usr,
 * node with the shared libraries ldd names, busybox as the shell and tools, the bundled runtime (dist/cell,
 * its code cache included) with only the packages it still loads (native SQLite and sqlite-vec), the built-in
 * embedder's word table, the cell init and its resume helper. Returns the packages it copied and whether the
 * helper was built (without it, idle cells of this image are stopped rather than suspended).
 */
export async function stageRootfs(
  options: StageOptions,
): Promise<{ packages: string[]; resumeHelper: ResumeHelperResult }> {
  const root = options.stageDir;
  for (const dir of [
    "usr/bin",
    "usr/lib",
    "usr/lib64",
    "usr/sbin",
    "etc",
    "proc",
    "sys",
    "dev",
    "tmp",
    "root",
  ]) {
    await mkdir(join(root, dir), { recursive: true });
  }
  await mkdir(join(root, "mnt/brain"), { recursive: true });
  // The user's skills disk is mounted here; without one it stays empty and the agent is offered none.
  await mkdir(join(root, "mnt/skills"), { recursive: true });
  for (const link of ["bin", "lib", "lib64", "sbin"]) await symlink(`usr/${link}`, join(root, link));
  await copyFile(options.nodeBinary, join(root, "usr/bin/node"));
  await copyFile(options.busybox, join(root, "usr/bin/busybox"));
  await chmod(join(root, "usr/bin/busybox"), 0o755);
  // The agent's bash tool runs bash, and runs it inside bwrap (the tool sandbox): both from the host, when it
  // has them, with their libraries (copied below with node's).
  const tools: string[] = [];
  for (const name of TOOL_BINARIES) {
    const host = await hostBinary(name);
    if (!host) continue;
    await copyFile(host, join(root, "usr/bin", name));
    await chmod(join(root, "usr/bin", name), 0o755);
    tools.push(host);
  }
  const applets = (await runProgram(options.busybox, ["--list"])).stdout.split("\n").filter(Boolean);
  for (const applet of applets) {
    if (applet === "busybox" || applet === "node" || applet.includes("/")) continue;
    await symlink("busybox", join(root, "usr/bin", applet)).catch(() => undefined);
  }
  const app = join(root, "opt/ironclaw");
  await mkdir(app, { recursive: true });
  await copyFile(join(options.packageRoot, "package.json"), join(app, "package.json"));
  const bundleDir = join(options.packageRoot, GUEST_BUNDLE_DIR);
  const bundle = await readGuestBundle(bundleDir);
  if (!bundle) throw new Error(`no inmate bundle in ${bundleDir}: run npm run build first`);
  // Source maps stay on the host: a stack trace from a cell is read there. So do the host's startup snapshots,
  // made for bwrap cells' flags on the host's CPU: the image's own is made in its VM (microvm-snapshot.ts).
  await cp(bundleDir, join(app, GUEST_BUNDLE_DIR), {
    recursive: true,
    filter: (f) => !f.endsWith(".map") && !f.endsWith(".blob"),
  });
  // The word-vector JSON stays too: the image carries the table made from it (below).
  const packages = bundle.packages.filter((p) => p.replace(/^.*node_modules\//, "") !== WORD_VECTOR_PACKAGE);
  for (const dir of packages) {
    const from = join(options.packageRoot, dir);
    const filter = (file: string) => !BUILD_LEFTOVERS.test(file.slice(from.length));
    await cp(from, join(app, dir), { recursive: true, dereference: false, filter });
  }
  // The built-in embedder's compact word table, converted on the host: the cell has no copy of the 300 MB
  // source JSON, and cell-init sets IRONCLAW_HOME=/opt/ironclaw so the guest's memory finds the table here.
  const { file: wordTable } = await loadWordTable(options.embeddingsHome ?? ironclawHome());
  await mkdir(join(app, "embeddings"), { recursive: true });
  await copyFile(wordTable, join(app, "embeddings", basename(wordTable)));
  const natives = [options.nodeBinary, ...tools, ...(await findNative(app))];
  for (const binary of natives) await copySharedLibraries(binary, root);
  await writeFile(
    join(root, "etc/passwd"),
    "root:x:0:0:root:/root:/bin/sh\ncell:x:1000:1000:cell:/tmp/workspace:/bin/sh\n",
  );
  await writeFile(join(root, "etc/group"), "root:x:0:\ncell:x:1000:\n");
  await writeFile(
    join(root, "sbin/cell-init"),
    cellInit({ ...options, snapshotBlob: microvmSnapshotPath() }),
    {
      mode: 0o755,
    },
  );
  const resumeHelper = await buildResumeHelper(join(root, RESUME_HELPER));
  return { packages, resumeHelper };
}

/** What a native package keeps after its build and never loads: sources, objects, make files (~27 MB). */
const BUILD_LEFTOVERS =
  /\/(deps|src|obj|obj\.target|\.deps)(\/|$)|\.(a|c|cc|h|mk|gyp|gypi|md)$|\/Makefile$|\/test_extension\.node$/;

/** Host programs a cell's tools need besides busybox. */
const TOOL_BINARIES = ["bash", "bwrap"];

async function hostBinary(name: string): Promise<string | undefined> {
  for (const dir of ["/usr/bin", "/bin", "/usr/local/bin"]) {
    const path = join(dir, name);
    if (
      await access(path, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return realpath(path);
  }
  return undefined;
}

async function findNative(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /\.(node|so)$/.test(entry.name)) found.push(join(entry.parentPath, entry.name));
  }
  return found;
}

/** Copies every library ldd lists for a binary to the same path under the stage (merged /usr). */
async function copySharedLibraries(binary: string, root: string): Promise<void> {
  const ldd = await runProgram("ldd", [binary]);
  for (const line of ldd.stdout.split("\n")) {
    const path = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1];
    if (!path) continue;
    const target = join(root, path.replace(/^\/(lib|lib64|bin|sbin)\//, "/usr/$1/"));
    await mkdir(dirname(target), { recursive: true });
    await copyFile(await realpath(path), target);
  }
}
