import { mkdir, open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { CellStartError } from "../cell.js";

/** Far above the warden's per-user uids, which count up from 200000. */
export const DEFAULT_POOL_UIDS = { first: 2_000_000_000, count: 100_000_000 };

/*
 * Why a blank cell runs as a uid of its own. A cell's host uid is fixed when its processes start, and a blank
 * cell starts before anyone knows whose it will be, so it cannot run as its user's uid. It takes the next
 * uid of a range no user and no other cell has: at any moment no two cells share a uid, and a uid is used
 * again only after the whole range has been (the counter is kept on disk across warden restarts). The brain
 * it is handed is made that uid's, as a cold start makes it the user's uid's.
 */
let queue: Promise<unknown> = Promise.resolve();

/** The next pool uid (gid alike), counted in usersDir/.pool-uid; one at a time within this warden. */
export function nextPoolOwner(
  usersDir: string,
  range: { first: number; count: number } = DEFAULT_POOL_UIDS,
): Promise<{ uid: number; gid: number }> {
  const valid = (n: number) => Number.isInteger(n) && n > 0;
  if (!valid(range.first) || !valid(range.count) || range.first + range.count > 0xffffffff) {
    const why = `pool uids ${range.first}+${range.count} are not allowed: a range of whole numbers above 0 ending below 4294967295`;
    return Promise.reject(new CellStartError(why));
  }
  const next = queue.then(async () => {
    await mkdir(usersDir, { recursive: true, mode: 0o700 });
    const file = join(usersDir, ".pool-uid");
    const stored = Number((await readFile(file, "utf8").catch(() => "")).trim());
    const offset =
      Number.isInteger(stored) && stored >= range.first && stored < range.first + range.count
        ? stored - range.first
        : 0;
    const uid = range.first + offset;
    // Written aside and renamed: a crash leaves the old count or the new one, never half a number.
    const tmp = `${file}.tmp`;
    const handle = await open(tmp, "w", 0o600);
    await handle.writeFile(String(range.first + ((offset + 1) % range.count)));
    await handle.close();
    await rename(tmp, file);
    return { uid, gid: uid };
  });
  queue = next.catch(() => undefined);
  return next;
}
