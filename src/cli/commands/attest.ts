import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { BrainHistory, exportHistory, loadOrCreateHostKey, PUBLIC_KEY_FILE } from "../../attest/index.js";
import { InvalidInputError, IronclawError, ironclawHome } from "../../core/index.js";
import { copyCertifiedTurns, copySessionTurns, evidenceDirOf } from "../../warden/index.js";
import { println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";
import { plural, report, sealBrain } from "./attest-brain.js";
import { copyRunEvidence, resolveExportTarget, TARGET_KINDS, type TargetKind } from "./attest-targets.js";

const exportState = defineCommand({
  name: "export",
  summary:
    "write a chat session, a command run or a user's brain into an evidence folder ironclaw verify passes",
  description: `Writes a self-contained evidence folder for <target>, which \`ironclaw verify <dir>\` checks offline:
  a session  the session's certified chat turns (certificates/, proofs/, responses/, the nodes/ they attest and
             every ancestor node, so the chain is whole) and the user's brain sealed as a state bundle: the state
             the session ended at, unless the brain changed since (a note says so)
  a run      the order certificates of a command run ($IRONCLAW_HOME/attest/run-evidence/<run_id>/), copied whole
  a user     the user's brain as a state bundle, and the certificates of all their chat turns so far
A session and a user also carry the user's brain history, so \`ironclaw brain import\` brings back its states
for \`brain log|diff|restore\`: history/history.bundle (a git bundle of the history as it is now, after any
forget), redactions.json when a forget left one, its nodes in nodes/, and history/history.json giving their
sha256s, which verify checks.
The name is looked up as all three; one that is several needs --as.
A state bundle: the brain (its markdown tree and its database, links left out) packed into
<dir>/bundles/<state_id>/: state_bundle.tar.enc (AES-256-GCM), result.json, next_tokens.json,
bundle_locator_next.json and the envelopes of the next step's keys. bundle_sha256 is the sha256 of exactly the
encrypted bytes written. Each export is the next step of the user's key ratchet on this host
($IRONCLAW_HOME/attest/): each state's key derives from the one before it, never the other way. The key printed
(or written to --key-out) opens this state's bundle: keep it to import the brain elsewhere with
\`ironclaw brain import\`.
A brain disk (users/<user>/brain.ext4, of microVM cells and of bwrap cells under a root warden) is written by its
cell and never opened by the host: its bundle is left out, said so in the output (--json: "bundle": null and
"bundle_skipped"), and --key-out writes nothing; the certificates and the brain's history (which the warden
recorded from what the cell reported) are exported, and \`ironclaw brain import\` rebuilds the brain from that
history. Stop the user's cell first: a running agent may be writing its database. The host's Ed25519 public key is written as <dir>/public-key.pem.`,
  positionals: [
    { name: "target", required: true, description: "a session id, a run id or a user" },
    { name: "dir", required: true, description: "the evidence folder (created if missing)" },
  ],
  options: [
    {
      name: "as",
      type: "string",
      valueName: "kind",
      description: "what <target> names, when it is several: user, run or session",
    },
    {
      name: "key-out",
      type: "string",
      valueName: "file",
      description:
        "write the state key to this new file (mode 0600) instead of printing it; nothing for a brain disk, which gets no bundle",
    },
    jsonOption("what was exported (the state with its key unless --key-out)"),
  ],
  async run({ options, args }, io) {
    const as = options.as;
    if (as !== undefined && !(TARGET_KINDS as readonly string[]).includes(as))
      throw new InvalidInputError("--as", `must be one of ${TARGET_KINDS.join(", ")}`);
    const target = await resolveExportTarget(io, args.target, as as TargetKind | undefined);
    const home = ironclawHome(io.env);
    const evidenceDir = resolve(io.cwd, args.dir);
    // First: a folder that holds another host's key gets nothing of this one.
    await writePublicKey(evidenceDir, loadOrCreateHostKey(home).publicKeyPem);
    if (target.kind === "run") {
      const certificates = await copyRunEvidence(target.dir, evidenceDir);
      if (options.json)
        println(io.stdout, JSON.stringify({ kind: "run", run_id: target.runId, certificates }));
      else
        println(
          io.stdout,
          `exported run ${target.runId}: ${certificates} order certificate${plural(certificates)}`,
        );
      return 0;
    }
    const user = target.kind === "user" ? target.user : target.turns.userId;
    const sealed = await sealBrain(io, user, evidenceDir, options["key-out"]);
    if (target.kind === "user") {
      const certified = await copyCertifiedTurns(evidenceDirOf(home, user), evidenceDir);
      const history = await exportHistory(home, user, evidenceDir);
      report(io, { kind: "user", user, certificates: certified }, { ...sealed, history }, options.json);
      return 0;
    }
    const copied = await copySessionTurns(home, target.turns, evidenceDir);
    // After the turns: the history's nodes the session's nodes already put in the folder are reused.
    const history = await exportHistory(home, user, evidenceDir);
    // The bundle is the brain as it is now: the session's last state, unless something changed the brain since.
    const head = BrainHistory.open(home, user).head();
    const ended = copied.nodeIds.at(-1);
    const movedOn = head !== undefined && ended !== undefined && head !== ended;
    const summary = {
      kind: "session",
      session_id: target.turns.sessionId,
      user,
      certificates: copied.certificates,
      nodes: copied.nodeIds,
      ...(movedOn ? { brain_moved_on: { ended_at: ended, head } } : {}),
    };
    report(io, summary, { ...sealed, history }, options.json);
    if (movedOn && !options.json && "done" in sealed)
      println(
        io.stdout,
        `note: the brain changed after the session's last turn (node ${ended}, now ${head}): the bundle holds it as it is now`,
      );
    return 0;
  },
});

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
  summary:
    "export a chat session, a command run or a user's brain as an evidence folder ironclaw verify passes",
  subcommands: [exportState],
});
