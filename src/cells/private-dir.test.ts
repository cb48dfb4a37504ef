import { chmod, chown, mkdir, mkdtemp, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensurePrivateDir } from "./private-dir.js";

let root = "";
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "ironclaw-private-dir-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the warden's private socket directory", () => {
  it("is made 0700 when missing, and kept when it is already the warden's alone", async () => {
    const dir = join(root, "cells");
    await ensurePrivateDir(dir);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    await ensurePrivateDir(dir);
  });

  it("is refused when others may enter it", async () => {
    const dir = join(root, "cells");
    await mkdir(dir);
    await chmod(dir, 0o777);
    await expect(ensurePrivateDir(dir)).rejects.toThrow(`${dir} is mode 0777: others may enter it`);
  });

  it("is refused as a symbolic link, even to a private directory", async () => {
    await mkdir(join(root, "real"), { mode: 0o700 });
    await symlink(join(root, "real"), join(root, "cells"));
    await expect(ensurePrivateDir(join(root, "cells"))).rejects.toThrow(
      "is not a directory (a symbolic link?)",
    );
  });

  it.skipIf(process.getuid?.() !== 0)("is refused when another user made it (as root)", async () => {
    const dir = join(root, "cells");
    await mkdir(dir, { mode: 0o700 });
    await chown(dir, 65534, 65534);
    await expect(ensurePrivateDir(dir)).rejects.toThrow("belongs to uid 65534, not to uid 0");
  });
});
