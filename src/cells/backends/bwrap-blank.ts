import { prepareProgramRunner } from "../../core/index.js";
import { releaseBrainLock } from "../brain-lock.js";
import {
  assertUserId,
  type BlankCell,
  type BlankCellSpec,
  type CellHandle,
  CellStartError,
  type CellStartSpec,
} from "../cell.js";
import { ensureSkillsDir } from "../skills-dir.js";
import { attachBrain } from "./bwrap-attach.js";
import { attachSkillsDir } from "./bwrap-attach-skills.js";
import type { BwrapBrain } from "./bwrap-brain.js";
import type { BwrapHost } from "./bwrap-host.js";
import { nextPoolOwner } from "./pool-uids.js";

/**
 * A blank bwrap cell: staged and sandboxed like any cell (its own uid, see pool-uids.ts, its own cgroup), its
 * runtime loaded, but /mnt/brain an empty slot and its user unknown. Handing it out (assign) mounts the
 * user's brain onto the slot from inside the cell's stage namespace (the slot is shared, so the mount shows
 * at /mnt/brain in the sandbox) and their installed skills, read-only, onto another (at /mnt/skills), renames
 * its cgroup after the user and greets it with a Hello naming them.
 * The cell never sees another brain: the slot was empty until then, and a handed-out cell is never pooled again.
 */
export async function startBlankCell(host: BwrapHost, spec: BlankCellSpec): Promise<BlankCell> {
  // The hand-out starts its programs through the helper (program-runner.ts): up before anyone is waiting.
  prepareProgramRunner();
  const owner = await nextPoolOwner(spec.usersDir, host.options.poolUids);
  const standIn = `pool-${owner.uid}`;
  const cgroup = await host.cgroup(standIn);
  let brain: BwrapBrain | undefined;
  const release = async () => {
    await cgroup?.remove();
    if (brain?.kind === "image") await releaseBrainLock(brain.lockFile);
  };
  const cellSpec: CellStartSpec = {
    userId: standIn,
    userDir: "",
    handler: spec.handler ?? "agent",
    ...(spec.maxFrameBytes ? { maxFrameBytes: spec.maxFrameBytes } : {}),
    ...(spec.heartbeatMs ? { heartbeatMs: spec.heartbeatMs } : {}),
    ...(spec.startTimeoutMs ? { startTimeoutMs: spec.startTimeoutMs } : {}),
  };
  const identity = ["--user", standIn, "--blank"];
  const command = await host
    .command(cellSpec, identity, { kind: "slot" }, owner, cgroup?.procsFiles, { kind: "slot" })
    .catch(async (error) => {
      await release();
      throw error;
    });
  const cell = await host.launch(command, cellSpec, release);
  let taken = false;
  return {
    cell,
    async assign(user: CellStartSpec): Promise<CellHandle> {
      if (taken) throw new CellStartError(`${standIn} was handed out already`);
      taken = true;
      assertUserId(user.userId);
      // What the cell was started with cannot change now: anything else is a cold start's business.
      if (user.env || user.allowNetwork || (user.handler ?? "agent") !== cellSpec.handler)
        throw new CellStartError(`${standIn} runs ${cellSpec.handler} without network or extra environment`);
      if (cell.peer.isClosed) throw new CellStartError(`${standIn} has stopped`);
      brain = await host.prepareBrain(user, owner);
      const { pid } = cell;
      if (pid === undefined) throw new CellStartError(`${standIn} has no process`);
      await attachBrain(pid, brain, owner).catch((error: Error) => {
        throw new CellStartError(`could not attach the brain of ${user.userId}: ${error.message}`, {
          cause: error,
        });
      });
      const skills = await ensureSkillsDir(user.userDir);
      await attachSkillsDir(pid, skills).catch((error: Error) => {
        throw new CellStartError(`could not attach the skills of ${user.userId}: ${error.message}`, {
          cause: error,
        });
      });
      await cgroup?.rename(`${user.userId}-${owner.uid}`).catch(() => undefined);
      cell.peer.adoptUser(user.userId);
      // Not waited for: requests sent meanwhile queue in the cell until its handler is built.
      cell.send({ type: "Hello", providers: [] });
      const handle: CellHandle = {
        ...cell,
        userId: user.userId,
        stats: async () => ({ ...(await cell.stats()), userId: user.userId }),
      };
      host.watchQuota(handle, brain);
      return handle;
    },
  };
}
