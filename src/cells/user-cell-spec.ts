import { CellStartError, type CellStartSpec } from "./cell.js";

/**
 * What every start of a user's cell carries, whoever starts it (the warden or `ironclaw cell`): the host uid
 * and gid of the user's own, recorded when the user was added. The backend gives that cell its own cgroup and
 * the host's limits; a shared owner would let one user's process flood use up another's processes (the kernel
 * counts RLIMIT_NPROC per uid) and let a wrong bind mount show one brain to another cell.
 *
 * Where the owner matters (an isolating backend under a root host) and the user has no uid, the start is
 * refused rather than run as a uid every such cell would share.
 */
export function userCellSpec(
  userId: string,
  cellUid: number | undefined,
  backend: { readonly isolated: boolean },
  asRoot = process.getuid?.() === 0,
): Pick<CellStartSpec, "runAs"> {
  if (cellUid !== undefined) return { runAs: { uid: cellUid, gid: cellUid } };
  if (!backend.isolated || !asRoot) return {};
  throw new CellStartError(
    `${userId} is not a user of this host, so their cell has no host uid of its own: add them with \`ironclaw user add ${userId}\` and start again`,
  );
}
