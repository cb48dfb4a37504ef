import { mkdir, open, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  exportBrainState,
  formatStateKey,
  loadOrCreateHostKey,
  PUBLIC_KEY_FILE,
} from "../../attest/index.js";
import { InvalidInputError, IronclawError } from "../../core/index.js";
import { copyCertifiedTurns, evidenceDirOf } from "../../warden/index.js";
import { println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";
import { brainWriter, directoryBrain, userBrainPlace } from "../user-brain.js";

const exportState = defineCommand({
  name: "export",
  summary: "write a user's current brain into an evidence folder as an encrypted state bundle",
  description: `Packs the brain of <user> (its markdown tree and its database, links left out) into
<dir>/bundles/<state_id>/: state_bundle.tar.enc (AES-256-GCM), result.json, next_tokens.json,
bundle_locator_next.json and the envelopes of the next step's keys. bundle_sha256 is the sha256 of exactly the
encrypted bytes written. Each export is the next step of the user's key ratchet on this host
($IRONCLAW_HOME/attest/): each state's key derives from the one before it, never the other way. The key printed
(or written to --key-out) opens this state's bundle: keep it to import the brain elsewhere with
\`ironclaw brain import\`.
Brains of bwrap and process cells (users/<user>/brain/) are exported; a brain disk (users/<user>/brain.ext4, of
microVM cells and of bwrap cells under a root warden) is not supported yet. Stop the user's cell first: a running
agent may be writing its database. The host's Ed25519 public key is written as <dir>/public-key.pem, and the
certificates of the user's chat turns so far (certificates/, proofs/, responses/, nodes/ of
$IRONCLAW_HOME/attest/evidence/<user>/) are copied beside the bundle, for \`ironclaw verify <dir>\`.`,
  positionals: [
    { name: "user", required: true, description: "whose brain" },
    { name: "dir", required: true, description: "the evidence folder (created if missing)" },
  ],
  options: [
    {
      name: "key-out",
      type: "string",
      valueName: "file",
      description: "write the state key to this new file (mode 0600) instead of printing it",
    },
    jsonOption("the exported state (with the key unless --key-out)"),
  ],
  async run({ options, args }, io) {
    const place = userBrainPlace(io, args.user);
    const brainDir = await directoryBrain(place, args.user);
    const writer = await brainWriter(place.home, args.user);
    if (writer) println(io.stderr, `warning: ${writer}; a brain being written may be caught mid-change`);
    const evidenceDir = resolve(io.cwd, args.dir);
    // First: a folder that holds another host's key gets no bundle of this one.
    await writePublicKey(evidenceDir, loadOrCreateHostKey(place.home).publicKeyPem);
    const keyOut = options["key-out"] === undefined ? undefined : resolve(io.cwd, options["key-out"]);
    // Opened before the export: a key file that cannot be written must not leave a bundle no one can open.
    const keyFile = keyOut === undefined ? undefined : await openNewKeyFile(keyOut);
    let done: Awaited<ReturnType<typeof exportBrainState>>;
    try {
      done = await exportBrainState({ home: place.home, user: args.user, brainDir, evidenceDir });
      await keyFile?.writeFile(`${formatStateKey(done.key)}\n`);
    } catch (error) {
      if (keyOut !== undefined) await rm(keyOut, { force: true });
      throw error;
    } finally {
      await keyFile?.close();
    }
    const certified = await copyCertifiedTurns(evidenceDirOf(place.home, args.user), evidenceDir);
    const key = formatStateKey(done.key);
    const { packed } = done;
    if (options.json) {
      const summary = {
        state_id: packed.stateId,
        ratchet_step: packed.ratchetStep,
        parent_state_id: done.parentStateId ?? null,
        bundle_dir: done.bundleDir,
        bundle_sha256: packed.bundleSha256,
        manifest_sha256: packed.manifestSha256,
        size_bytes: packed.sizeBytes,
        skipped: packed.skipped,
        certificates: certified,
      };
      println(io.stdout, JSON.stringify(keyOut ? { ...summary, key_file: keyOut } : { ...summary, key }));
      return 0;
    }
    println(
      io.stdout,
      `exported the brain of ${args.user} as state ${packed.stateId} (ratchet step ${packed.ratchetStep})`,
    );
    println(
      io.stdout,
      `  bundle          ${join(done.bundleDir, "state_bundle.tar.enc")} (${packed.sizeBytes} bytes)`,
    );
    println(io.stdout, `  bundle_sha256   ${packed.bundleSha256}`);
    println(io.stdout, `  manifest_sha256 ${packed.manifestSha256}`);
    for (const s of packed.skipped) println(io.stdout, `  left out        ${s.path} (${s.reason})`);
    println(
      io.stdout,
      `  certificates    ${certified} certified chat turn${certified === 1 ? "" : "s"} copied`,
    );
    if (keyOut) println(io.stdout, `state key written to ${keyOut}`);
    else
      println(io.stdout, `state key: ${key}\nkeep it: it opens this bundle, and it is shown only this once`);
    return 0;
  },
});

async function openNewKeyFile(file: string) {
  return open(file, "wx", 0o600).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
    throw new InvalidInputError("--key-out", `${file} exists; a state key is written only to a new file`);
  });
}

/** The host's public key beside the bundles, as `ironclaw verify` reads it; a folder of another host is refused. */
async function writePublicKey(evidenceDir: string, pem: string): Promise<void> {
  const file = join(evidenceDir, PUBLIC_KEY_FILE);
  await mkdir(evidenceDir, { recursive: true });
  const existing = await readFile(file, "utf8").catch(() => undefined);
  if (existing === undefined) await writeFile(file, pem, { mode: 0o644 });
  else if (existing !== pem)
    throw new IronclawError(
      "evidence_foreign",
      `${file} is another host's public key: export into a folder of its own`,
    );
}

export const attestCommand = defineGroup({
  name: "attest",
  summary: "export a user's brain as an encrypted, hash-pinned state bundle",
  subcommands: [exportState],
});
