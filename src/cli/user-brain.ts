import { existsSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { configuredImage, listKeptCells, loadHostConfig, usersDir } from "../cells/index.js";
import type { IronclawdConfig } from "../contracts/index.js";
import { InvalidInputError, IronclawError, ironclawHome } from "../core/index.js";
import { runningWardenUrl } from "../warden/index.js";
import type { CliIo } from "./command.js";

const USER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export interface UserBrainPlace {
  home: string;
  config: IronclawdConfig;
  userDir: string;
  /** `users/<user>/brain`, the brain of bwrap and process cells. */
  brainDir: string;
  /** `users/<user>/brain.ext4`, the brain disk of microVM cells (and of bwrap cells under a root warden). */
  diskFile: string;
}

/** Where IRONCLAW_HOME keeps a user's brain, as the cells find it ([storage] users_dir of ironclawd.toml). */
export function userBrainPlace(io: CliIo, user: string): UserBrainPlace {
  if (!USER.test(user))
    throw new InvalidInputError(
      "user",
      "must be 1-64 letters, digits, - or _, starting with a letter or digit",
    );
  const home = ironclawHome(io.env);
  const config = loadHostConfig(home);
  const userDir = join(usersDir(config, home), user);
  return { home, config, userDir, brainDir: join(userDir, "brain"), diskFile: join(userDir, "brain.ext4") };
}

/** What is at a path without following a link: a directory, a file, a link, or nothing. */
export async function kindAt(path: string): Promise<"dir" | "file" | "link" | "other" | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (!info) return undefined;
  if (info.isSymbolicLink()) return "link";
  return info.isDirectory() ? "dir" : info.isFile() ? "file" : "other";
}

/** A user's brain as export finds it: its directory, or a disk image the host never opens. */
export type ExportableBrain = { kind: "dir"; dir: string } | { kind: "disk"; file: string };

/**
 * The user's brain to export: the directory when there is one, else the disk image (of microVM cells, and of
 * bwrap cells under a root warden), which a cell wrote and the host therefore does not mount. A brain that is
 * a link, or no brain at all, is refused.
 */
export async function exportableBrain(place: UserBrainPlace, user: string): Promise<ExportableBrain> {
  const kind = await kindAt(place.brainDir);
  if (kind === "dir") return { kind: "dir", dir: place.brainDir };
  if (kind !== undefined)
    throw new IronclawError(
      "brain_refused",
      `${place.brainDir} is ${kind === "link" ? "a symbolic link" : "not a directory"}: a brain must be a real directory`,
    );
  if ((await kindAt(place.diskFile)) !== undefined) return { kind: "disk", file: place.diskFile };
  throw new IronclawError("brain_missing", `${user} has no brain under ${place.userDir}: nothing to export`);
}

/**
 * Refuses to write a directory brain this host's cells would never use. A microVM cell boots only brain.ext4
 * and makes a fresh one when it is missing; a bwrap cell under a root warden copies a directory brain into its
 * new brain.ext4 on its first start, and other cells use the directory itself. Under `auto` the choice is
 * made by probing at the warden's start: a host that may pick microVMs gets a warning, not a refusal.
 */
export function checkDirectoryBrainUsable(place: UserBrainPlace, user: string): string | undefined {
  const { backend, allow_tcg } = place.config.cells;
  const toml = join(place.home, "ironclawd.toml");
  if (backend === "microvm")
    throw new IronclawError(
      "brain_unusable",
      `this host's cells are microVMs ([cells] backend = "microvm" in ${toml}), which boot a brain disk (brain.ext4) and would start ${user} on a new one, never on an imported directory: set [cells] backend = "bwrap" (a root warden copies a directory brain into its disk at the cell's first start) or "process", then import`,
    );
  const microvmPossible =
    backend === "auto" &&
    existsSync(configuredImage(place.config, place.home).kernel) &&
    (allow_tcg || existsSync("/dev/kvm"));
  if (microvmPossible)
    return `[cells] backend = "auto" may pick microVM cells on this host, which would not use this directory brain: set [cells] backend = "bwrap" in ${toml} to be sure`;
  return undefined;
}

/**
 * Who may be writing the user's brain now: a cell kept by `ironclaw cell start`, or a warden on this home (it
 * starts the user's cell at their next message). Undefined when neither runs.
 */
export async function brainWriter(home: string, user: string): Promise<string | undefined> {
  const cells = await listKeptCells(join(home, "run", "cells"));
  if (cells.some((c) => c.user === user))
    return `the cell of ${user} is running (ironclaw cell stop --user ${user})`;
  const warden = runningWardenUrl(home);
  return warden === undefined ? undefined : `a warden runs on this home (${warden})`;
}
