import { open, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  type ExportedHistory,
  type ExportedState,
  exportBrainState,
  formatStateKey,
} from "../../attest/index.js";
import { InvalidInputError } from "../../core/index.js";
import { type CliIo, println } from "../command.js";
import { brainWriter, exportableBrain, userBrainPlace } from "../user-brain.js";

/** The brain sealed as a bundle, or why no bundle was written (a disk image the host does not open). */
export type Sealed =
  | { done: ExportedState; keyOut: string | undefined }
  | { skipped: string; keyOut: string | undefined };

/**
 * Seals the user's brain as the next state bundle of their ratchet, the key printed or written to keyOut. A
 * brain disk is left out, with the reason: a cell wrote its file system, so the host never mounts it; the
 * brain's history, recorded from what the cell reported, stands for it in the folder.
 */
export async function sealBrain(
  io: CliIo,
  user: string,
  evidenceDir: string,
  keyOutOption: string | undefined,
): Promise<Sealed> {
  const place = userBrainPlace(io, user);
  const brain = await exportableBrain(place, user);
  const keyOut = keyOutOption === undefined ? undefined : resolve(io.cwd, keyOutOption);
  if (brain.kind === "disk")
    return {
      skipped: `the brain is a disk image (${brain.file}) its cell writes and the host never mounts: no state bundle, and no key; the brain's history stands for it`,
      keyOut,
    };
  const writer = await brainWriter(place.home, user);
  if (writer) println(io.stderr, `warning: ${writer}; a brain being written may be caught mid-change`);
  // Opened before the export: a key file that cannot be written must not leave a bundle no one can open.
  const keyFile = keyOut === undefined ? undefined : await openNewKeyFile(keyOut);
  try {
    const done = await exportBrainState({ home: place.home, user, brainDir: brain.dir, evidenceDir });
    await keyFile?.writeFile(`${formatStateKey(done.key)}\n`);
    return { done, keyOut };
  } catch (error) {
    if (keyOut !== undefined) await rm(keyOut, { force: true });
    throw error;
  } finally {
    await keyFile?.close();
  }
}

/** What an export wrote for a user or a session: the bundle and its key (or why none), certificates, history. */
export function report(
  io: CliIo,
  what: { kind: string; user: string; certificates: number; session_id?: string },
  sealed: Sealed & { history: ExportedHistory | undefined },
  json: boolean,
): void {
  const { history } = sealed;
  if (json) {
    const summary = { ...what, ...bundleSummary(sealed), history: history ? historySummary(history) : null };
    println(io.stdout, JSON.stringify(summary));
    return;
  }
  const whose = what.session_id === undefined ? "" : ` at the end of session ${what.session_id}`;
  if ("done" in sealed) {
    const { packed, bundleDir } = sealed.done;
    println(
      io.stdout,
      `exported the brain of ${what.user}${whose} as state ${packed.stateId} (ratchet step ${packed.ratchetStep})`,
    );
    println(
      io.stdout,
      `  bundle          ${join(bundleDir, "state_bundle.tar.enc")} (${packed.sizeBytes} bytes)`,
    );
    println(io.stdout, `  bundle_sha256   ${packed.bundleSha256}`);
    println(io.stdout, `  manifest_sha256 ${packed.manifestSha256}`);
    for (const s of packed.skipped) println(io.stdout, `  left out        ${s.path} (${s.reason})`);
  } else {
    println(io.stdout, `exported the evidence of ${what.user}${whose} without a state bundle`);
    println(io.stdout, `  bundle          none: ${sealed.skipped}`);
  }
  println(
    io.stdout,
    `  certificates    ${what.certificates} certified chat turn${plural(what.certificates)} copied`,
  );
  if (history)
    println(
      io.stdout,
      `  history         ${history.manifest.node_ids.length} node${plural(history.manifest.node_ids.length)} to ${history.manifest.head_node_id} (history/${history.manifest.bundle_file}, ${history.manifest.bundle_sha256})`,
    );
  else if (!("done" in sealed))
    println(io.stdout, "  history         none: the brain has no recorded state yet");
  if (!("done" in sealed)) {
    if (sealed.keyOut) println(io.stdout, `no state key: nothing written to ${sealed.keyOut}`);
  } else if (sealed.keyOut) println(io.stdout, `state key written to ${sealed.keyOut}`);
  else
    println(
      io.stdout,
      `state key: ${formatStateKey(sealed.done.key)}\nkeep it: it opens this bundle, and it is shown only this once`,
    );
}

function bundleSummary(sealed: Sealed) {
  if (!("done" in sealed))
    return {
      state_id: null,
      bundle: null,
      bundle_skipped: sealed.skipped,
      ...(sealed.keyOut ? { key_file: null } : {}),
    };
  const { done, keyOut } = sealed;
  const { packed } = done;
  const summary = {
    state_id: packed.stateId,
    ratchet_step: packed.ratchetStep,
    parent_state_id: done.parentStateId ?? null,
    bundle_dir: done.bundleDir,
    bundle_sha256: packed.bundleSha256,
    manifest_sha256: packed.manifestSha256,
    size_bytes: packed.sizeBytes,
    skipped: packed.skipped,
  };
  return keyOut ? { ...summary, key_file: keyOut } : { ...summary, key: formatStateKey(done.key) };
}

function historySummary({ manifest }: ExportedHistory) {
  const { head_node_id, node_ids, bundle_sha256 } = manifest;
  return { head_node_id, nodes: node_ids.length, bundle_sha256 };
}

export function plural(n: number): string {
  return n === 1 ? "" : "s";
}

async function openNewKeyFile(file: string) {
  return open(file, "wx", 0o600).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
    throw new InvalidInputError("--key-out", `${file} exists; a state key is written only to a new file`);
  });
}
