import { readFile, stat } from "node:fs/promises";
import { runProgramViaHelper } from "../../core/index.js";
import { CellStartError } from "../cell.js";
import { identifySource, prepareStage, stagedPath } from "./bwrap-stage.js";

/*
 * Why a hold, and not a bind then a read-only remount on the slot. The slot is shared with the cell's sandbox:
 * a mount made on it is copied into the sandbox with the flags it has at that moment, and a remount afterwards
 * changes the stage's copy alone (mount flags stay in the namespace that set them). So the folder is bound at a
 * private point of the stage first, made read-only there, and that read-only mount is bound onto the slot: the
 * sandbox receives it read-only, and since the sandbox is another user namespace the kernel locks the flag
 * (MNT_LOCK_READONLY), so not even a process with every capability of a user namespace of the cell's can
 * remount it writable.
 */
const ATTACH_SKILLS_SCRIPT = `set -eu
mount -n --bind "$1" "$2"
mount -n -o remount,bind,ro,nodev,nosuid "$2"
mount -n --bind "$2" "$3"
exec umount -n "$2"`;

/**
 * Mounts the user's installed skills (`hostDir`, host-owned) read-only onto the skills slot of the running blank
 * cell whose first process is `pid`, where the sandbox sees them at /mnt/skills. Throws CellStartError when it
 * cannot, when what got mounted is not the folder that was opened, or when the mount is not read-only.
 */
export async function attachSkillsDir(pid: number, hostDir: string): Promise<void> {
  await prepareStage(["skills-hold"]);
  const slot = stagedPath("skills");
  const source = { name: "skills" as const, source: hostDir, noFollow: true };
  const opened = await identifySource(source);
  const run = await runProgramViaHelper(
    "nsenter",
    [
      `--target=${pid}`,
      "--mount",
      "--",
      "/bin/sh",
      "-c",
      ATTACH_SKILLS_SCRIPT,
      "ironclaw-attach-skills",
    ].concat(hostDir, stagedPath("skills-hold"), slot),
    60_000,
  );
  if (!run.ok)
    throw new CellStartError(
      `could not attach ${hostDir}: ${run.stderr.trim() || run.error || `exit ${run.code}`}`,
    );
  const mounted = await stat(`/proc/${pid}/root${slot}`, { bigint: true });
  if (`${mounted.dev}:${mounted.ino}` !== opened)
    throw new CellStartError(`${hostDir} changed while it was attached; start the cell again`);
  if (!(await mountedReadOnly(pid, slot)))
    throw new CellStartError(`the skills of the cell are not mounted read-only at ${slot}`);
}

/** Whether the topmost mount at `point` in the mount namespace of `pid` carries the per-mount `ro` flag. */
async function mountedReadOnly(pid: number, point: string): Promise<boolean> {
  const top = (await readFile(`/proc/${pid}/mountinfo`, "utf8"))
    .split("\n")
    .map((line) => line.split(" "))
    .filter((fields) => fields[4] === point)
    .at(-1);
  return top?.[5]?.split(",").includes("ro") === true;
}
