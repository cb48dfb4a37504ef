import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { listKeptCells, loadHostConfig, usersDir } from "../cells/index.js";
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

/** The user's directory brain, refusing a disk brain (not readable here yet) and a brain that is a link. */
export async function directoryBrain(place: UserBrainPlace, user: string): Promise<string> {
  const kind = await kindAt(place.brainDir);
  if (kind === "dir") return place.brainDir;
  if (kind !== undefined)
    throw new IronclawError(
      "brain_refused",
      `${place.brainDir} is ${kind === "link" ? "a symbolic link" : "not a directory"}: a brain must be a real directory`,
    );
  if ((await kindAt(place.diskFile)) !== undefined)
    throw new IronclawError(
      "brain_is_disk",
      `the brain of ${user} is a disk image (${place.diskFile}, used by microVM cells and by bwrap cells under a root warden): exporting a brain disk is not supported yet`,
    );
  throw new IronclawError("brain_missing", `${user} has no brain under ${place.userDir}: nothing to export`);
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
