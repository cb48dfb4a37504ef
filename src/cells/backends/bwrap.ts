import { releaseBrainLock } from "../brain-lock.js";
import {
  assertUserId,
  type CellBackend,
  type CellHandle,
  CellStartError,
  type CellStartSpec,
} from "../cell.js";
import { ensureSkillsDir } from "../skills-dir.js";
import { attachWorkDir } from "./bwrap-attach-work.js";
import { startBlankCell } from "./bwrap-blank.js";
import { type BwrapBackendOptions, createBwrapHost, type Owner } from "./bwrap-host.js";

export type { BwrapBackendOptions } from "./bwrap-host.js";

/** bubblewrap: every namespace unshared, no network unless allowed, read-only system, rlimits, quotas. */
export function createBwrapBackend(options: BwrapBackendOptions = {}): CellBackend {
  const host = createBwrapHost(options);
  return {
    name: "bwrap",
    isolated: true,
    async start(spec: CellStartSpec): Promise<CellHandle> {
      assertUserId(spec.userId);
      // Without root the cell is the warden's own uid inside a user namespace, and runAs cannot apply.
      const owner = host.asRoot ? cellOwner(spec, options) : undefined;
      const brain = await host.prepareBrain(spec, owner);
      const cgroup = owner ? await host.cgroup(spec.userId) : undefined;
      const release = async () => {
        await cgroup?.remove();
        if (brain.kind === "image") await releaseBrainLock(brain.lockFile);
      };
      const command = await ensureSkillsDir(spec.userDir)
        .then((dir) => host.command(spec, ["--user", spec.userId], brain, owner, cgroup?.procsFiles, { dir }))
        .catch(async (error) => {
          await release();
          throw error;
        });
      const cell = await host.launch(command, spec, release);
      host.watchQuota(cell, brain);
      return owner && spec.workSlot ? withAttachWork(cell, owner) : cell;
    },
    // Blank cells need root: only root can give a running cell its brain (see bwrap-blank.ts).
    ...(host.asRoot ? { startBlank: (spec) => startBlankCell(host, spec) } : {}),
  };
}

/** The cell with attachWork: its work slot takes one host directory, once. */
function withAttachWork(cell: CellHandle, owner: Owner): CellHandle {
  let attached = false;
  return {
    ...cell,
    async attachWork(hostDir: string): Promise<void> {
      if (attached) throw new CellStartError(`the cell of ${cell.userId} has a directory attached already`);
      attached = true;
      if (cell.pid === undefined || cell.peer.isClosed)
        throw new CellStartError(`the cell of ${cell.userId} has stopped`);
      await attachWorkDir(cell.pid, hostDir, owner);
    },
  };
}

/** The host uid/gid of this user's cell under a root warden: the spec's runAs, else the backend default. */
function cellOwner(spec: CellStartSpec, options: BwrapBackendOptions): Owner {
  const owner = spec.runAs ?? { uid: options.sandboxUid ?? 65534, gid: options.sandboxGid ?? 65534 };
  const valid = (id: number) => Number.isInteger(id) && id > 0 && id < 0xffffffff;
  if (!valid(owner.uid) || !valid(owner.gid)) {
    throw new CellStartError(
      `cell uid/gid ${owner.uid}/${owner.gid} for ${spec.userId} is not allowed: use whole numbers from 1 to 4294967294 (a cell never runs as root)`,
    );
  }
  return owner;
}
