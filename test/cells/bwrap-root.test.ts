import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, chown, lstat, mkdir, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CellBackend,
  type CellHandle,
  CellStartError,
  createBwrapBackend,
  defaultRuntime,
} from "../../src/cells/index.js";
import { placeNodeBinary } from "../support/node-binary.js";
import { shellIn } from "./cell-shell.js";
import { SUITE_BACKENDS } from "./suite-backends.js";

// What only a root warden does: a host uid per user, brains handed over without following links, and
// bind sources the cell's uid could never reach by path. Non-root hosts run cells in user namespaces.
const asRoot = process.getuid?.() === 0;
const unavailable = SUITE_BACKENDS.bwrap?.().unavailable;
const images = asRoot && existsSync("/dev/loop-control");
const ADA = { uid: 61_001, gid: 61_001 };
const BOB = { uid: 61_002, gid: 61_002 };

/** Runs a command as a bare host uid, the way a cell's processes would be if a bind mount went wrong. */
function runAsUid(owner: { uid: number; gid: number }, command: string[]) {
  const run = spawnSync("setpriv", [
    `--reuid=${owner.uid}`,
    `--regid=${owner.gid}`,
    "--clear-groups",
    ...command,
  ]);
  return { ok: run.status === 0, out: `${run.stdout}${run.stderr}` };
}

/** The uids of the cell's host process, as the host's kernel sees them. */
async function hostUids(cell: CellHandle): Promise<string> {
  const { pid } = await cell.stats();
  return /^Uid:\s*(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]?.trim() ?? "";
}

describe.skipIf(!asRoot || unavailable !== undefined)("bwrap cells under a root warden", () => {
  let home = "";
  let backend: CellBackend;
  let imageBackend: CellBackend;
  const started: CellHandle[] = [];
  const start = async (
    user: string,
    runAs?: { uid: number; gid: number },
    handler: "echo" | "shell" = "echo",
    using: CellBackend = backend,
  ) => {
    const cell = await using.start({
      userId: user,
      userDir: join(home, "users", user),
      handler,
      startTimeoutMs: 30_000,
      ...(runAs ? { runAs } : {}),
    });
    started.push(cell);
    return cell;
  };

  beforeAll(async () => {
    // mkdtemp makes the home 0700 and root's: a cell uid cannot traverse it, like /root/.ironclaw.
    home = await mkdtemp(join(tmpdir(), "ironclaw-bwrap-root-"));
    // Directory brains (a root warden without loop devices), then brain images (the default with them).
    backend = createBwrapBackend({ runtime: defaultRuntime(), brainImages: false });
    imageBackend = createBwrapBackend({ runtime: defaultRuntime(), brainImages: true });
  });
  afterAll(async () => {
    await Promise.all(started.map((c) => c.stop({ timeoutMs: 5_000 })));
    await rm(home, { recursive: true, force: true });
  }, 60_000);

  it("runs two users' cells as their own host uids, each brain 0700 and its user dir root's alone", async () => {
    const [ada, bob] = await Promise.all([start("ada", ADA), start("bob", BOB)]);
    expect(await hostUids(ada)).toBe("61001\t61001\t61001\t61001");
    expect(await hostUids(bob)).toBe("61002\t61002\t61002\t61002");
    for (const [user, owner] of [
      ["ada", ADA],
      ["bob", BOB],
    ] as const) {
      const brain = await stat(join(home, "users", user, "brain"));
      expect([brain.uid, brain.gid, brain.mode & 0o7777]).toEqual([owner.uid, owner.gid, 0o700]);
      const userDir = await stat(join(home, "users", user));
      expect([userDir.uid, userDir.mode & 0o7777]).toEqual([0, 0o700]);
    }
  }, 60_000);

  it("keeps one user's brain unreadable to another cell's uid even with a path to it", async () => {
    const cell = await start("carol", { uid: 61_003, gid: 61_003 });
    await cell.call({ type: "FileOpRequest", op: "write", path: "carol.md", content: "carol's note\n" });
    const brain = join(home, "users", "carol", "brain");
    // The user dir that would hide it is opened up here, as a wrong bind mount would: the brain still holds.
    for (const dir of [home, join(home, "users"), join(home, "users", "carol")]) await chmod(dir, 0o755);
    try {
      const stranger = runAsUid(ADA, ["cat", join(brain, "carol.md")]);
      expect(stranger.ok, stranger.out).toBe(false);
      expect(stranger.out).toContain("Permission denied");
      // The probe works: the same read as carol's own uid gets the note.
      expect(runAsUid({ uid: 61_003, gid: 61_003 }, ["cat", join(brain, "carol.md")]).out).toBe(
        "carol's note\n",
      );
    } finally {
      for (const dir of [home, join(home, "users"), join(home, "users", "carol")]) await chmod(dir, 0o700);
    }
  }, 60_000);

  it("starts a cell whose home, brain and node lie under a directory its uid cannot traverse", async () => {
    // A node prefix outside /usr under a 0700 directory (like nvm in /root); not under /tmp, which the cell
    // mounts a tmpfs over. The binary is this Node's own file, not a link to it: a link would lead the cell out
    // of the prefix it binds, to wherever this Node lives (under /root itself for Node from the npm registry).
    const hidden = await mkdtemp(join("/var/tmp", "ironclaw-hidden-node-"));
    try {
      await mkdir(join(hidden, "node", "bin"), { recursive: true });
      await placeNodeBinary(join(hidden, "node", "bin", "node"));
      // The probe: the cell's uid really cannot reach either place by path.
      expect(runAsUid({ uid: 65_534, gid: 65_534 }, ["ls", home]).ok).toBe(false);
      expect(runAsUid({ uid: 65_534, gid: 65_534 }, ["ls", hidden]).ok).toBe(false);
      const hiddenNode = createBwrapBackend({
        runtime: defaultRuntime(),
        nodePath: join(hidden, "node", "bin", "node"),
      });
      const cell = await hiddenNode.start({
        userId: "dana",
        userDir: join(home, "users", "dana"),
        handler: "echo",
        startTimeoutMs: 30_000,
      });
      started.push(cell);
      const reply = await cell.call({ type: "UserMessage", text: "hello from behind 0700" });
      expect(reply).toMatchObject({ type: "TurnComplete", text: "hello from behind 0700" });
      expect(await hostUids(cell)).toBe("65534\t65534\t65534\t65534");
    } finally {
      await rm(hidden, { recursive: true, force: true });
    }
  }, 60_000);

  it("never chowns what a symlink in a root-owned brain points at when the cell starts", async () => {
    const outside = join(home, "outside");
    await mkdir(join(outside, "inner"), { recursive: true });
    await writeFile(join(outside, "host.txt"), "host file\n");
    const brain = join(home, "users", "erin", "brain");
    await mkdir(join(brain, "notes"), { recursive: true });
    await writeFile(join(brain, "memory.md"), "# Memory\n");
    await symlink(outside, join(brain, "outside-link"));
    await symlink(join(outside, "host.txt"), join(brain, "notes", "host-link"));
    await symlink("../../../../outside/inner", join(brain, "notes", "relative-link"));
    const erin = { uid: 61_005, gid: 61_005 };
    expect((await stat(brain)).uid).toBe(0); // root-owned: the start must hand it over
    const cell = await start("erin", erin, "shell");
    expect((await shellIn(cell, "cat memory.md")).stdout).toBe("# Memory\n");
    for (const target of ["", "host.txt", "inner"]) {
      expect((await stat(join(outside, target))).uid, `outside/${target}`).toBe(0);
    }
    // The walk did reach the links: they, not their targets, now belong to the cell.
    expect((await lstat(join(brain, "outside-link"))).uid).toBe(erin.uid);
    expect((await lstat(join(brain, "notes", "host-link"))).uid).toBe(erin.uid);
    // The probe works: a chown that follows the same link does change the outside directory.
    await chown(join(brain, "outside-link"), erin.uid, erin.gid);
    expect((await stat(outside)).uid).toBe(erin.uid);
  }, 60_000);

  it.skipIf(!images)(
    "keeps a brain image root's alone on the host and mounts it as the cell's own inside",
    async () => {
      const cell = await start("gina", { uid: 61_007, gid: 61_007 }, "shell", imageBackend);
      const image = await stat(join(home, "users", "gina", "brain.ext4"));
      expect([image.uid, image.mode & 0o777]).toEqual([0, 0o600]);
      expect(
        runAsUid({ uid: 61_007, gid: 61_007 }, ["cat", join(home, "users", "gina", "brain.ext4")]).ok,
      ).toBe(false);
      const inside = await shellIn(
        cell,
        "stat -c '%u %a' /mnt/brain; touch /mnt/brain/mine && stat -c %u /mnt/brain/mine",
      );
      expect(inside.stdout).toBe("1000 700\n1000\n");
      // Written files persist in the image across a restart.
      await cell.call({ type: "FileOpRequest", op: "write", path: "kept.md", content: "in the image\n" });
      await cell.stop();
      const again = await start("gina", { uid: 61_007, gid: 61_007 }, "shell", imageBackend);
      expect(await again.call({ type: "FileOpRequest", op: "read", path: "kept.md" })).toMatchObject({
        content: "in the image\n",
      });
    },
    60_000,
  );

  it.skipIf(!images)(
    "moves a directory brain into its image without following the links planted in it",
    async () => {
      const outside = join(home, "outside-image");
      await mkdir(join(outside, "inner"), { recursive: true });
      await writeFile(join(outside, "host.txt"), "host file\n");
      const brain = join(home, "users", "hank", "brain");
      await mkdir(join(brain, "notes"), { recursive: true });
      await writeFile(join(brain, "memory.md"), "# Memory\n");
      await symlink(outside, join(brain, "outside-link"));
      await symlink(join(outside, "host.txt"), join(brain, "notes", "host-link"));
      const cell = await start("hank", { uid: 61_008, gid: 61_008 }, "shell", imageBackend);
      const inside = await shellIn(cell, "cat memory.md; stat -c %u outside-link notes/host-link");
      expect(inside.stdout).toBe("# Memory\n1000\n1000\n");
      for (const target of ["", "host.txt", "inner"]) {
        expect((await stat(join(outside, target))).uid, `outside/${target}`).toBe(0);
      }
      // The directory is kept aside for its owner; the image is the brain from now on.
      expect((await lstat(join(home, "users", "hank", "brain.moved-into-brain.ext4"))).isDirectory()).toBe(
        true,
      );
      expect((await stat(join(home, "users", "hank", "brain.ext4"))).isFile()).toBe(true);
      // The probe works: a chown that follows the same link does change the outside directory.
      await chown(join(home, "users", "hank", "brain.moved-into-brain.ext4", "outside-link"), 61_008, 61_008);
      expect((await stat(outside)).uid).toBe(61_008);
    },
    60_000,
  );

  it("refuses to run a cell as host root, in one line", async () => {
    const refused = start("frank", { uid: 0, gid: 0 });
    await expect(refused).rejects.toBeInstanceOf(CellStartError);
    await expect(refused).rejects.toThrow(
      /^cell uid\/gid 0\/0 for frank is not allowed: .*never runs as root\)$/,
    );
  });
});
