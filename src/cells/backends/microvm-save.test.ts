import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, statfs, utimes, writeFile } from "node:fs/promises";
import { createConnection, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ControlLine,
  noRoomForSave,
  receiveSave,
  SAVE_RESERVE,
  savedVmPaths,
  saveVm,
  sweepSavedVms,
  takeSavedVm,
} from "./microvm-save.js";

let dir = "";
let brain = "";

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ironclaw-saved-vm-"));
  brain = join(dir, "brain.ext4");
  await writeFile(brain, "disk");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A saved VM as saveVm leaves it, recorded against the brain disk as it is now. */
async function save(key: string, meta: Record<string, unknown> = {}): Promise<void> {
  const s = await stat(brain);
  const paths = savedVmPaths(dir);
  await writeFile(paths.state, "saved memory");
  await writeFile(
    paths.meta,
    JSON.stringify({
      key,
      brain: { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino },
      nextMsgId: 7,
      savedAt: new Date().toISOString(),
      ...meta,
    }),
  );
}

const files = async () => (await readdir(dir)).filter((n) => n !== "brain.ext4").sort();

describe("taking a saved VM", () => {
  it("hands it out once, renamed, with the msg_id its warden peer goes on from", async () => {
    await save("k");
    const taken = await takeSavedVm(dir, "k", brain);
    expect(taken).toEqual({ file: savedVmPaths(dir).taken, nextMsgId: 7 });
    expect(await files()).toEqual(["cell.state.resuming"]);
    // A second start (or a warden that died mid-resume) never gets the same memory again.
    expect(await takeSavedVm(dir, "k", brain)).toEqual({ why: "no saved VM" });
    expect(await files()).toEqual([]);
  });

  it("clears what a save the warden did not finish left behind", async () => {
    await writeFile(`${savedVmPaths(dir).state}.partial`, "half of a memory");
    expect(await takeSavedVm(dir, "k", brain)).toEqual({ why: "no saved VM" });
    expect(await files()).toEqual([]);
  });

  it("discards one saved with another image or other limits", async () => {
    await save("image A");
    expect(await takeSavedVm(dir, "image B", brain)).toEqual({
      why: "saved with another image or other cell limits",
    });
    expect(await files()).toEqual([]);
  });

  it("discards one whose brain disk was written since", async () => {
    await save("k");
    await utimes(brain, new Date(), new Date(Date.now() + 5_000));
    expect(await takeSavedVm(dir, "k", brain)).toEqual({
      why: "the brain disk changed since the VM was saved",
    });
    expect(await files()).toEqual([]);
  });

  it("discards one whose brain disk was replaced by another file", async () => {
    await save("k");
    await rm(brain);
    await writeFile(brain, "disk");
    const result = await takeSavedVm(dir, "k", brain);
    expect(result.file).toBeUndefined();
    expect(await files()).toEqual([]);
  });

  it("discards a damaged record, and memory saved without one", async () => {
    await save("k", { nextMsgId: -1 });
    expect(await takeSavedVm(dir, "k", brain)).toEqual({ why: "its record is damaged" });
    await writeFile(savedVmPaths(dir).state, "saved memory");
    await writeFile(savedVmPaths(dir).meta, "{not json");
    expect(await takeSavedVm(dir, "k", brain)).toEqual({ why: "its record is damaged" });
    await writeFile(savedVmPaths(dir).state, "saved memory");
    expect(await takeSavedVm(dir, "k", brain)).toEqual({ why: "no saved VM" });
    expect(await files()).toEqual([]);
  });
});

describe("sweeping saved VMs", () => {
  it("deletes the saves older than the keep, and only those", async () => {
    const day = 86_400_000;
    for (const user of ["gone", "recent", "none"]) await mkdir(join(dir, user));
    for (const user of ["gone", "recent"]) {
      await writeFile(savedVmPaths(join(dir, user)).state, "saved memory");
      await writeFile(savedVmPaths(join(dir, user)).meta, "{}");
    }
    const old = new Date(Date.now() - 8 * day);
    await utimes(savedVmPaths(join(dir, "gone")).state, old, old);
    expect(await sweepSavedVms(dir, 7 * day)).toEqual(["gone"]);
    expect(await readdir(join(dir, "gone"))).toEqual([]);
    expect((await readdir(join(dir, "recent"))).sort()).toEqual(["cell.state", "cell.state.json"]);
    // A users directory that is not there yet is nothing to sweep.
    expect(await sweepSavedVms(join(dir, "missing"), day)).toEqual([]);
  });
});

describe("room for a save", () => {
  const GiB = 1024 ** 3;
  const disk = (totalGiB: number, freeGiB: number) => ({
    bsize: 4096,
    blocks: (totalGiB * GiB) / 4096,
    bavail: (freeGiB * GiB) / 4096,
  });

  it("leaves 1 GiB, or 5% of a disk over 20 GiB, free after the largest save", () => {
    expect(SAVE_RESERVE).toEqual({ bytes: GiB, share: 0.05 });
    expect(noRoomForSave(disk(10, 2), 0.25 * GiB)).toBeUndefined();
    expect(noRoomForSave(disk(10, 1.2), 0.25 * GiB)).toBe(
      "the disk has 1229 MiB free: a save of up to 256 MiB must leave 1024 MiB",
    );
    // 5% of 100 GiB is 5 GiB.
    expect(noRoomForSave(disk(100, 6), 0.5 * GiB)).toBeUndefined();
    expect(noRoomForSave(disk(100, 5.2), 0.5 * GiB)).toMatch(/must leave 5120 MiB$/);
  });

  it("refuses a save that would not fit before it asks anything of the guest or of QEMU", async () => {
    const heard: string[] = [];
    const listen = async (name: string): Promise<{ server: Server; path: string }> => {
      const path = join(dir, name);
      const server = createServer((socket) => {
        heard.push(name);
        socket.on("data", (d) => heard.push(`${name}: ${d}`));
      });
      await new Promise<void>((resolve) => server.listen(path, resolve));
      return { server, path };
    };
    const guest = await listen("control.sock");
    const monitor = await listen("monitor.sock");
    const socket = createConnection(guest.path);
    await new Promise((resolve) => socket.once("connect", resolve));
    try {
      const fs = await statfs(dir);
      const result = await saveVm({
        control: new ControlLine(socket),
        monitorPath: monitor.path,
        saveSocketPath: join(dir, "save.sock"),
        userDir: dir,
        key: "k",
        brainFile: brain,
        // More than this disk has free.
        memoryBytes: fs.bavail * fs.bsize + 1,
        nextMsgId: () => 1,
      });
      expect(result.saved).toBe(false);
      expect(result.saved ? "" : result.why).toMatch(
        /^the disk has \d+ MiB free: a save of up to \d+ MiB must leave/,
      );
      // The control port heard only this test connect; the monitor, nothing.
      expect(heard).toEqual(["control.sock"]);
      expect(await files()).toEqual(["control.sock", "monitor.sock"]);
    } finally {
      socket.destroy();
      guest.server.close();
      monitor.server.close();
    }
  });
});

describe("receiving a save", () => {
  it("writes the whole stream, 0600, and settles only after its last byte is in the file", async () => {
    const socketPath = join(dir, "save.sock");
    const file = join(dir, "cell.state.partial");
    const receiver = await receiveSave(socketPath, file);
    const body = randomBytes(3 * 1024 * 1024 + 17);
    const qemu = createConnection(socketPath);
    // Written in pieces and ended, as QEMU's migration stream is.
    for (let at = 0; at < body.length; at += 65_536) qemu.write(body.subarray(at, at + 65_536));
    qemu.end();
    expect(await receiver.written).toBe(body.length);
    expect((await readFile(file)).equals(body)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // One stream only: nobody else connects once QEMU has.
    const late = createConnection(socketPath);
    await expect(
      new Promise((resolve, reject) => {
        late.once("connect", resolve);
        late.once("error", reject);
      }),
    ).rejects.toThrow();
    await receiver.close();
    expect(await files()).toEqual(["cell.state.partial"]);
  });

  it("gives up cleanly when no stream comes", async () => {
    const socketPath = join(dir, "save.sock");
    const receiver = await receiveSave(socketPath, join(dir, "cell.state.partial"));
    await receiver.close();
    expect(await files()).toEqual([]);
  });
});
