// Suspending a microVM cell to disk and resuming it. An idle cell's VM is saved whole (QEMU's migration stream:
// memory, devices, the running runtime) to its user's directory and ended; the user's next message restores it
// where it was, in well under the time a boot takes. A saved VM is restored at most once: the file is taken
// (renamed) before QEMU reads it, so no two VMs ever continue from one saved random state, and the guest's
// resume helper reseeds the kernel's generator and sets the clock, which stood still while the VM was saved.
// The saved memory holds the brain's file system as mounted, so it is only used with the very brain disk it
// was saved beside (same file, size and mtime); anything else (the disk touched, another image, other limits)
// discards it, and the cell boots as before. The brain on disk is synced before every save, so a discarded
// save loses nothing written before it.
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { lstat, readdir, readFile, rename, rm, stat, statfs, writeFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { listenOnce } from "./listen-once.js";

/** Where a user's saved VM and what it was saved with live, beside their brain disk. */
export function savedVmPaths(userDir: string): { state: string; meta: string; taken: string } {
  return {
    state: join(userDir, "cell.state"),
    meta: join(userDir, "cell.state.json"),
    taken: join(userDir, "cell.state.resuming"),
  };
}

interface SavedVmMeta {
  /** What the VM was booted with: the image and every setting the guest's memory depends on. */
  key: string;
  brain: { size: number; mtimeMs: number; ino: number };
  /** The msg_id the resumed cell's warden peer starts from: the guest refuses ids it has seen. */
  nextMsgId: number;
  savedAt: string;
}

async function brainIdentity(brainFile: string): Promise<SavedVmMeta["brain"]> {
  const s = await stat(brainFile);
  return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino };
}

/**
 * Takes the user's saved VM if it was saved with this key beside this very brain disk: returns the file to
 * restore from (renamed, so it can never be taken twice), or why there is none. Any saved VM that does not
 * match is deleted.
 */
export async function takeSavedVm(
  userDir: string,
  key: string,
  brainFile: string,
): Promise<{ file: string; nextMsgId: number } | { file?: undefined; why: string }> {
  const paths = savedVmPaths(userDir);
  // Left by a resume that never finished (its state may have run already, so it is never used), and by a save
  // the warden did not live to finish.
  await rm(paths.taken, { force: true });
  await rm(`${paths.state}.partial`, { force: true });
  const meta = await readFile(paths.meta, "utf8").then(parseMeta, () => undefined);
  const discard = async (why: string) => {
    await rm(paths.state, { force: true });
    await rm(paths.meta, { force: true });
    return { why };
  };
  if (!meta) return discard("no saved VM");
  if (meta === "damaged") return discard("its record is damaged");
  if (meta.key !== key) return discard("saved with another image or other cell limits");
  const now = await brainIdentity(brainFile).catch(() => undefined);
  const then = meta.brain;
  if (!now || now.size !== then.size || now.mtimeMs !== then.mtimeMs || now.ino !== then.ino)
    return discard("the brain disk changed since the VM was saved");
  const taken = await rename(paths.state, paths.taken).then(
    () => true,
    () => false,
  );
  await rm(paths.meta, { force: true });
  return taken ? { file: paths.taken, nextMsgId: meta.nextMsgId } : { why: "no saved VM" };
}

function parseMeta(text: string): SavedVmMeta | "damaged" {
  try {
    const meta = JSON.parse(text) as Partial<SavedVmMeta>;
    const brain = meta.brain;
    const counts = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0;
    if (
      typeof meta.key === "string" &&
      brain &&
      counts(brain.size) &&
      counts(brain.mtimeMs) &&
      counts(brain.ino) &&
      Number.isSafeInteger(meta.nextMsgId) &&
      counts(meta.nextMsgId)
    )
      return meta as SavedVmMeta;
  } catch {}
  return "damaged";
}

/**
 * Deletes the saved VMs under IRONCLAW_HOME/users that are older than `maxAgeMs`: each holds its guest's memory
 * (130–180 MiB), and a user who does not come back would keep theirs for good. Their cells boot next time.
 * Returns the users whose save went.
 */
export async function sweepSavedVms(usersDir: string, maxAgeMs: number, now = Date.now()): Promise<string[]> {
  const swept: string[] = [];
  for (const user of await readdir(usersDir).catch(() => [] as string[])) {
    const paths = savedVmPaths(join(usersDir, user));
    const saved = await lstat(paths.state).catch(() => undefined);
    if (!saved?.isFile() || now - saved.mtimeMs <= maxAgeMs) continue;
    await rm(paths.state, { force: true });
    await rm(paths.meta, { force: true });
    swept.push(user);
  }
  return swept;
}

/** Whether the user's cell is suspended: a saved VM waits beside their brain (it may still be discarded at
 * resume if it no longer fits the brain or the image). */
export async function hasSavedVm(userDir: string): Promise<boolean> {
  const saved = await lstat(savedVmPaths(userDir).state).catch(() => undefined);
  return saved?.isFile() ?? false;
}

/** After a resume: the saved state was read, or is of no more use. */
export async function dropTakenVm(userDir: string): Promise<void> {
  await rm(savedVmPaths(userDir).taken, { force: true });
}

/** One command on QEMU's human monitor; resolves with what it printed before its next prompt. */
export async function monitorCommand(
  monitorPath: string,
  command: string,
  timeoutMs = 10_000,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(monitorPath);
    let out = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`QEMU's monitor did not answer ${command} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("data", (d: Buffer) => {
      out += d.toString();
      // The banner's prompt, then the one after the command's output.
      if (out.split("(qemu)").length > 2) {
        clearTimeout(timer);
        socket.end();
        resolve(out.slice(out.indexOf("(qemu)") + 6, out.lastIndexOf("(qemu)")));
      }
    });
    socket.once("connect", () => socket.write(`${command}\n`));
  });
}

/**
 * The host side of the guest's control port: one line out, one line back. cell-init's root loop answers
 * (see init-scripts.ts); the cell user cannot open the port.
 */
export class ControlLine {
  private buffered = "";
  private waiting: ((line: string) => void) | undefined;

  constructor(private readonly socket: Socket) {
    socket.on("data", (d: Buffer) => {
      this.buffered += d.toString();
      const end = this.buffered.indexOf("\n");
      if (end < 0 || !this.waiting) return;
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 1);
      const answer = this.waiting;
      this.waiting = undefined;
      answer(line.trim());
    });
    socket.on("error", () => {});
  }

  ask(line: string, timeoutMs: number): Promise<string> {
    if (this.waiting) return Promise.reject(new Error("the control port is busy"));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new Error(`the guest did not answer ${line.split(" ")[0]} within ${timeoutMs} ms`));
      }, timeoutMs);
      const closed = () => {
        clearTimeout(timer);
        this.waiting = undefined;
        reject(new Error("the guest's control port closed"));
      };
      this.socket.once("close", closed);
      this.waiting = (answer) => {
        clearTimeout(timer);
        this.socket.off("close", closed);
        resolve(answer);
      };
      this.socket.write(`${line}\n`);
    });
  }

  /** The clock and fresh entropy for a guest that was just restored. */
  resumeLine(): string {
    return `resume ${Date.now()} ${randomBytes(64).toString("hex")}`;
  }
}

/** What a save leaves free on the users' file system at the least: 1 GiB, or 5% of it where that is more. */
export const SAVE_RESERVE = { bytes: 1024 ** 3, share: 0.05 };

/**
 * Why a save of up to `saveBytes` (the guest's memory) does not fit on a file system with these blocks, or
 * undefined when it does. Brains, ledgers and the warden's databases share that disk, and a full disk fails
 * their writes; a cell that is not suspended only boots next time.
 */
export function noRoomForSave(
  fs: { bsize: number; blocks: number; bavail: number },
  saveBytes: number,
): string | undefined {
  const free = fs.bavail * fs.bsize;
  const keep = Math.max(SAVE_RESERVE.bytes, fs.blocks * fs.bsize * SAVE_RESERVE.share);
  if (free - saveBytes >= keep) return undefined;
  const mib = (n: number) => `${Math.round(n / 1024 ** 2)} MiB`;
  return `the disk has ${mib(free)} free: a save of up to ${mib(saveBytes)} must leave ${mib(keep)}`;
}

/**
 * Receives QEMU's migration stream on a unix socket (`migrate unix:`) and writes it to `file` (0600): `written`
 * settles once QEMU has closed the stream and every byte is in the file. The warden writes the file itself:
 * an `exec:` writer's shell is signalled away as soon as QEMU closes the pipe (SIGTERM, then SIGKILL 10 ms
 * later), leaving its `cat` to finish on its own, so nothing would say when the file is whole.
 */
export async function receiveSave(
  socketPath: string,
  file: string,
): Promise<{ written: Promise<number>; close: () => Promise<void> }> {
  await rm(socketPath, { force: true });
  const listener = await listenOnce(socketPath);
  const written = listener.connection.then(async (socket) => {
    // The guest's whole memory: the warden's alone, as the brain disk is.
    const out = createWriteStream(file, { mode: 0o600, highWaterMark: 4 * 1024 * 1024 });
    await pipeline(socket, out);
    return out.bytesWritten;
  });
  written.catch(() => {}); // awaited by the caller; a save given up on must not be an unhandled rejection
  return {
    written,
    async close() {
      listener.close();
      await rm(socketPath, { force: true });
    },
  };
}

/**
 * Saves a running VM: its brain synced, the VM stopped and written to its user's directory with what it was
 * saved with. Returns false when it could not, with the VM running again as it was; also, untouched, when the
 * users' disk has no room for a save of `memoryBytes` (noRoomForSave).
 */
export async function saveVm(options: {
  control: ControlLine;
  monitorPath: string;
  /** Where the warden listens for QEMU's migration stream while it saves (a short path: a unix socket). */
  saveSocketPath: string;
  userDir: string;
  key: string;
  brainFile: string;
  /** The guest's memory: the most a save can write. */
  memoryBytes: number;
  nextMsgId: () => number;
}): Promise<{ saved: true } | { saved: false; why: string }> {
  const paths = savedVmPaths(options.userDir);
  const room = await statfs(options.userDir).then(
    (fs) => noRoomForSave(fs, options.memoryBytes),
    (error: Error) => `the disk's free space is unknown (${error.message})`,
  );
  if (room) return { saved: false, why: room };
  const partial = `${paths.state}.partial`;
  const mon = (command: string) => monitorCommand(options.monitorPath, command);
  let stopped = false;
  let receiver: Awaited<ReturnType<typeof receiveSave>> | undefined;
  try {
    const synced = await options.control.ask("sync", 30_000);
    if (synced !== "synced") return { saved: false, why: `the guest answered ${synced} to sync` };
    await mon("stop");
    stopped = true;
    // QEMU's default cap (32 MiB/s) would make a save of a 256 MiB guest take seconds.
    await mon("migrate_set_parameter max-bandwidth 4G");
    await rm(partial, { force: true });
    receiver = await receiveSave(options.saveSocketPath, partial);
    // Detached (-d): without it the monitor answers only at its once-a-second status check, which made every
    // save take a second for a migration of 0.1-0.2 s; completion is polled below instead.
    await mon(`migrate -d "unix:${options.saveSocketPath}"`);
    for (let polls = 0; ; polls++) {
      const info = await mon("info migrate");
      if (/Migration status: completed/.test(info)) break;
      if (/Migration status: (failed|cancelled)/.test(info) || polls > 2_400)
        throw new Error(
          `the save did not complete: ${/Migration status: \S+/.exec(info)?.[0] ?? "no status"}`,
        );
      await new Promise((r) => setTimeout(r, 25));
    }
    // QEMU has sent everything; the file is whole once the stream has ended and the last bytes are written.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      receiver.written,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("the save's stream did not end within 30 s")), 30_000);
      }),
    ]).finally(() => clearTimeout(timer));
    await receiver.close();
    const meta: SavedVmMeta = {
      key: options.key,
      brain: await brainIdentity(options.brainFile),
      // Read once the VM has stopped: nothing sent after that ever reached it.
      nextMsgId: options.nextMsgId(),
      savedAt: new Date().toISOString(),
    };
    await writeFile(paths.meta, `${JSON.stringify(meta)}\n`, { mode: 0o600 });
    await rename(partial, paths.state);
    return { saved: true };
  } catch (error) {
    await receiver?.close();
    await rm(partial, { force: true });
    await rm(paths.meta, { force: true });
    if (stopped) await mon("cont").catch(() => undefined);
    return { saved: false, why: (error as Error).message };
  }
}
