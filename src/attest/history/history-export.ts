import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalBytes, sha256Hex } from "../../core/index.js";
import { historyGit } from "./history-git.js";
import { historyDirOf, historyLayout } from "./history-layout.js";
import { withHistoryLock } from "./history-lock.js";
import {
  HISTORY_BUNDLE_FILE,
  HISTORY_DIR,
  HISTORY_MANIFEST_FILE,
  HISTORY_REDACTIONS_FILE,
  type HistoryManifest,
} from "./history-manifest.js";
import { NodeStore } from "./node-store.js";

export interface ExportedHistory {
  manifest: HistoryManifest;
  /** Nodes written to nodes/ because the folder did not hold them yet (the others it had are reused). */
  nodesWritten: number;
}

/**
 * Writes a user's brain history into an evidence folder, so that `ironclaw brain import` can restore it on
 * another host: history/history.bundle (`git bundle` of every ref of the history's repository, as it is now,
 * so a forget's rewrite travels and the words it removed do not), redactions.json when a forget left one,
 * every node into nodes/ (a node the folder already holds, attested or not, is reused), and
 * history/history.json restating what they hash to. Undefined when the user has no history yet. Taken under
 * the history's lock: no state is recorded between the bundle and the nodes.
 */
export async function exportHistory(
  home: string,
  userId: string,
  evidenceDir: string,
): Promise<ExportedHistory | undefined> {
  const layout = historyLayout(historyDirOf(home, userId));
  const head = (await readFile(layout.headFile, "utf8").catch(() => "")).trim();
  if (head === "") return undefined;
  return withHistoryLock(layout.lockFile, async () => {
    const headNodeId = (await readFile(layout.headFile, "utf8")).trim();
    const out = join(evidenceDir, HISTORY_DIR);
    await mkdir(out, { recursive: true });
    const bundle = join(out, HISTORY_BUNDLE_FILE);
    const temp = `${bundle}.${process.pid}.tmp`;
    await historyGit(layout.repo, ["bundle", "create", "-q", temp, "--all"]);
    await rename(temp, bundle);
    const bundleBytes = await readFile(bundle);
    const redactions = join(out, HISTORY_REDACTIONS_FILE);
    await rm(redactions, { force: true });
    const redactionBytes = await readFile(layout.redactionsFile).catch(() => undefined);
    if (redactionBytes !== undefined) await copyFile(layout.redactionsFile, redactions);
    const nodesWritten = await writeNodes(new NodeStore(layout.nodesDir), join(evidenceDir, "nodes"));
    const manifest: HistoryManifest = {
      schema_version: "ironclaw-history-v1",
      head_node_id: headNodeId,
      node_ids: nodesWritten.ids,
      bundle_file: HISTORY_BUNDLE_FILE,
      bundle_sha256: `sha256:${sha256Hex(bundleBytes)}`,
      size_bytes: bundleBytes.length,
      redactions_sha256: redactionBytes === undefined ? null : `sha256:${sha256Hex(redactionBytes)}`,
    };
    await writeFile(join(out, HISTORY_MANIFEST_FILE), canonicalBytes(manifest));
    return { manifest, nodesWritten: nodesWritten.written };
  });
}

/** Every node of the store into `nodesDir`, unless a file there already holds it (`<id>.json`, `<id>.<job>.json`). */
async function writeNodes(store: NodeStore, nodesDir: string): Promise<{ ids: string[]; written: number }> {
  await mkdir(nodesDir, { recursive: true });
  const present = new Set((await readdir(nodesDir)).map((name) => name.slice(0, name.indexOf("."))));
  const ids = store.ids().sort();
  let written = 0;
  for (const id of ids) {
    if (present.has(id)) continue;
    await writeFile(join(nodesDir, `${id}.json`), canonicalBytes(store.get(id)));
    written += 1;
  }
  return { ids, written };
}
