import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cellInit, initramfsInit, SNAPSHOT_REFUSED_STATUS } from "./init-scripts.js";

let dir = "";
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The guest runs both scripts with busybox's shell; a host without busybox checks them with its own sh. */
const shell = ["/bin/busybox", "/usr/bin/busybox"].find((b) => existsSync(b));

function syntaxError(script: string): string {
  const run = spawnSync(shell ?? "sh", shell ? ["sh", "-n"] : ["-n"], { input: script });
  return run.status === 0 ? "" : run.stderr.toString() || `exit ${run.status}`;
}

describe("init scripts", () => {
  it("are valid shell, with and without a snapshot path", () => {
    expect(syntaxError(initramfsInit(["virtio", "virtio_blk"]))).toBe("");
    const init = cellInit({
      workspaceMiB: 64,
      maxProcesses: 256,
      snapshotBlob: "/opt/x/runtime.microvm.blob",
    });
    expect(syntaxError(init)).toBe("");
    // A broken script is caught, so the checks above can fail.
    expect(syntaxError(`${init}\nif then fi\n`)).not.toBe("");
  });

  it(`match node: a snapshot node refuses ends the process with status ${SNAPSHOT_REFUSED_STATUS} before any of it runs`, async () => {
    dir = await mkdtemp(join(tmpdir(), "ironclaw-refused-"));
    const entry = join(dir, "entry.cjs");
    const blob = join(dir, "made.blob");
    await writeFile(
      entry,
      `require("node:v8").startupSnapshot.setDeserializeMainFunction(() => process.stdout.write("ran"));\n`,
    );
    // Made with a heap limit. Node 20 counts V8's flags in the snapshot's tag, so without the flag it refuses
    // the snapshot; later nodes (24) leave flags out of the check and load it.
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    execFileSync(
      process.execPath,
      ["--max-old-space-size=100", "--snapshot-blob", blob, "--build-snapshot", entry],
      { cwd: dir, env },
    );
    const same = spawnSync(process.execPath, ["--max-old-space-size=100", "--snapshot-blob", blob], { env });
    expect(same.status).toBe(0);
    expect(same.stdout.toString()).toBe("ran");
    const other = spawnSync(process.execPath, ["--snapshot-blob", blob], { env });
    if (other.status === 0) {
      console.log(`node ${process.version} does not count V8's flags in a snapshot's tag: it loads this one`);
      // Node 20, which the image build and CI run, does count them.
      expect(Number(process.versions.node.split(".")[0])).toBeGreaterThan(20);
      expect(other.stdout.toString()).toBe("ran");
    } else {
      expect(other.stdout.toString()).toBe("");
      expect(other.status).toBe(SNAPSHOT_REFUSED_STATUS);
    }
  });
});
