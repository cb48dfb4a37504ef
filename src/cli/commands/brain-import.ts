import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  BUNDLE_FILE,
  hasExportedHistory,
  historyExists,
  importBrainState,
  importHistory,
  LOCATOR_FILE,
  parseStateKey,
} from "../../attest/index.js";
import { bundleLocatorSchema } from "../../contracts/index.js";
import { InvalidInputError, IronclawError } from "../../core/index.js";
import { println } from "../command.js";
import { defineCommand } from "../command-spec.js";
import {
  brainWriter,
  checkDirectoryBrainUsable,
  kindAt,
  type UserBrainPlace,
  userBrainPlace,
} from "../user-brain.js";
import { brainFromHistory } from "./brain-rebuild.js";

export const importBrain = defineCommand({
  name: "import",
  summary: "restore a user's brain from an encrypted state bundle, or rebuild it from an exported history",
  description: `Restores the brain of --user from <dir>: a bundle folder (state_bundle.tar.enc and
bundle_locator_next.json) or an evidence folder written by \`ironclaw attest export\` (its latest state, or
--state). The bundle's sha256 is checked before anything is decrypted, then AES-256-GCM with the key of
--key-file, then every file against the bundle's manifest; a bundle with links or paths leaving the brain is
refused. The brain is written to users/<user>/brain/ (the brain of bwrap and process cells) and becomes the head
of the user's key ratchet on this host. An existing brain is kept unless --force, which moves it aside.
An evidence folder's brain history (history/) becomes the user's history here, for \`ironclaw brain
log|show|diff|restore\`: its bundle is checked against history/history.json, verified and fetched by git with
no hooks and no transport but the local file, and every node must pin a commit it holds. A user who already
has a history is refused, --force or not: a history is never replaced.
A folder with a history but no bundle (the export of a brain disk) needs no key: the brain is rebuilt from the
history's head, its markdown files byte for byte, with what a new brain has filled in where missing (config/,
cron/, from the host's [new_brains]); the cell builds the search index from the markdown at its first start.
The brain is a directory: a bwrap cell under a root warden copies it into its brain.ext4 at its first start, but
microVM cells would never use it, so a host with [cells] backend = "microvm" is refused.`,
  positionals: [{ name: "dir", required: true, description: "a bundle folder or an evidence folder" }],
  options: [
    {
      name: "user",
      type: "string",
      required: true,
      valueName: "name",
      description: "whose brain it becomes",
    },
    {
      name: "key-file",
      type: "string",
      valueName: "file",
      description:
        "the state key export printed or wrote (base64url); not needed for a folder without a bundle",
    },
    { name: "state", type: "string", valueName: "id", description: "which state of an evidence folder" },
    { name: "force", type: "boolean", description: "move an existing brain aside instead of refusing" },
  ],
  async run({ options, args }, io) {
    const place = userBrainPlace(io, options.user);
    const dir = resolve(io.cwd, args.dir);
    const bundleDir = await findBundle(dir, options.state);
    const withHistory = hasExportedHistory(dir);
    if (bundleDir === undefined && !withHistory)
      throw new InvalidInputError(
        "dir",
        `${dir} holds neither a state bundle (${BUNDLE_FILE}, or bundles/<state_id>/) nor a brain history (history/history.json): nothing to import`,
      );
    if (withHistory && historyExists(place.home, options.user))
      throw new IronclawError(
        "history_exists",
        `${options.user} already has a brain history on ${place.home}: an import never replaces one; import under another user`,
      );
    const keyFile = options["key-file"];
    if (bundleDir !== undefined && keyFile === undefined)
      throw new InvalidInputError("--key-file", `is required: ${bundleDir} holds a state bundle it opens`);
    const key =
      bundleDir === undefined || keyFile === undefined
        ? undefined
        : parseStateKey(await readFile(resolve(io.cwd, keyFile), "utf8"), "--key-file");
    const warning = checkDirectoryBrainUsable(place, options.user);
    const present = await existingBrain(place, options.user, options.force);
    await mkdir(place.userDir, { recursive: true, mode: 0o700 });
    // Restored beside the brain and renamed into place: an import that fails half way leaves no half brain.
    const staging = `${place.brainDir}.import-${randomBytes(4).toString("hex")}`;
    let historyMade: string | undefined;
    try {
      const restored =
        bundleDir === undefined || key === undefined
          ? undefined
          : await importBrainState({
              home: place.home,
              user: options.user,
              bundleDir,
              key,
              targetDir: staging,
            });
      // The history before the brain is renamed into place: a history refused leaves the brain as it was.
      const history = withHistory
        ? await importHistory({ home: place.home, userId: options.user, evidenceDir: dir })
        : undefined;
      historyMade = history?.dir;
      const rebuilt =
        restored === undefined && history !== undefined
          ? await brainFromHistory(place, options.user, history.headNodeId, staging)
          : undefined;
      const movedAside = await moveAside(present);
      await rename(staging, place.brainDir);
      historyMade = undefined;
      if (movedAside) println(io.stdout, `moved the previous brain to ${movedAside}`);
      if (restored)
        println(
          io.stdout,
          `restored the brain of ${options.user} from state ${restored.stateId ?? "(unnamed)"}: ${restored.files} files, ${restored.bytes} bytes, manifest ${restored.manifestSha256}`,
        );
      if (rebuilt) {
        println(
          io.stdout,
          `rebuilt the brain of ${options.user} from its history's head ${history?.headNodeId} (the folder holds no state bundle): ${rebuilt.files} markdown files, ${rebuilt.bytes} bytes`,
        );
        if (rebuilt.filledIn.length > 0)
          println(io.stdout, `  filled in from a new brain's layout: ${rebuilt.filledIn.join(", ")}`);
        println(io.stdout, "  its search index is built by the cell's first start, from the markdown");
      }
      println(io.stdout, `brain at ${place.brainDir}`);
      if (history)
        println(
          io.stdout,
          `history of ${history.nodes} node${history.nodes === 1 ? "" : "s"} to ${history.headNodeId} at ${history.dir}`,
        );
      if (keyFile !== undefined && bundleDir === undefined)
        println(io.stderr, "note: --key-file was not needed: the folder holds no state bundle");
      if (warning) println(io.stderr, `warning: ${warning}`);
      return 0;
    } catch (error) {
      // A brain that could not be put in place takes the history imported for it along.
      if (historyMade !== undefined) await rm(historyMade, { recursive: true, force: true });
      throw error;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  },
});

/**
 * The bundle folder: `dir` itself, or the chosen (else the highest-step) state under `dir/bundles/`; undefined
 * when the folder holds none (the export of a brain disk).
 */
async function findBundle(dir: string, state: string | undefined): Promise<string | undefined> {
  if (existsSync(join(dir, BUNDLE_FILE))) return dir;
  const root = join(dir, "bundles");
  if (state !== undefined) {
    if (!/^[0-9A-Za-z-]+$/.test(state)) throw new InvalidInputError("--state", "must be a state id");
    if (!existsSync(join(root, state, BUNDLE_FILE)))
      throw new InvalidInputError("--state", `${state} has no ${BUNDLE_FILE} under ${root}`);
    return join(root, state);
  }
  const names = await readdir(root).catch(() => [] as string[]);
  const steps: Array<{ dir: string; step: number }> = [];
  for (const name of names) {
    // A folder that is not a bundle (no locator, not JSON) is passed over, not an error.
    const json = await readFile(join(root, name, LOCATOR_FILE), "utf8")
      .then((text) => JSON.parse(text) as unknown)
      .catch(() => null);
    const locator = bundleLocatorSchema.safeParse(json);
    if (locator.success) steps.push({ dir: join(root, name), step: locator.data.ratchet_step ?? -1 });
  }
  if (steps.length === 0) return undefined;
  steps.sort((a, b) => b.step - a.step);
  if (steps.length > 1 && steps[0]?.step === steps[1]?.step)
    throw new InvalidInputError("--state", `${dir} holds several states at step ${steps[0]?.step}: name one`);
  return (steps[0] as { dir: string }).dir;
}

/** The brain (directory or disk) already there; refused unless forced, since import would replace it. */
async function existingBrain(place: UserBrainPlace, user: string, force: boolean): Promise<string[]> {
  const present: string[] = [];
  for (const path of [place.brainDir, place.diskFile])
    if ((await kindAt(path)) !== undefined) present.push(path);
  if (present.length > 0 && !force)
    throw new IronclawError(
      "brain_exists",
      `${user} already has a brain (${present.join(", ")}); pass --force to move it aside and import anyway`,
    );
  // A running cell would go on writing the brain it holds, moved aside or not.
  const writer = present.length > 0 ? await brainWriter(place.home, user) : undefined;
  if (writer)
    throw new IronclawError("brain_in_use", `${writer}: stop it before replacing the brain of ${user}`);
  return present;
}

/** Forced: the old brain is moved aside once the new one is restored, never deleted. */
async function moveAside(paths: string[]): Promise<string | undefined> {
  if (paths.length === 0) return undefined;
  const suffix = `.before-import-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  for (const path of paths) await rename(path, `${path}${suffix}`);
  return paths.map((p) => `${p}${suffix}`).join(", ");
}
