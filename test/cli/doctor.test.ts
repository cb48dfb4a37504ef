import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultRuntime } from "../../src/cells/index.js";
import { runIronclaw, runIronclawInProcess } from "./run-cli.js";

interface Report {
  checks: Array<{ name: string; status: string; detail: string; disables?: string }>;
  cellBackend: { backend: string | null; reason: string };
}

let home = "";
afterEach(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  home = "";
});

/** A home whose images/ holds a complete image (its parts empty) with this manifest. */
async function homeWithImage(manifest: Record<string, unknown>): Promise<string> {
  home = await mkdtemp(join(tmpdir(), "ironclaw-doctor-"));
  const images = join(home, "images");
  await mkdir(images);
  for (const part of ["vmlinuz", "initramfs.cpio.gz", "rootfs.ext4"]) await writeFile(join(images, part), "");
  await writeFile(join(images, "manifest.json"), JSON.stringify(manifest));
  return home;
}

describe("ironclaw doctor", () => {
  it("reports every probe and the chosen cell backend as JSON", async () => {
    // A home without a cell image: the microVM start check appears only with one.
    home = await mkdtemp(join(tmpdir(), "ironclaw-doctor-"));
    const { code, stdout } = await runIronclawInProcess(["doctor", "--json"], {
      env: { IRONCLAW_HOME: home },
    });
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Report;
    const names = report.checks.map((c) => c.name);
    expect(names).toEqual([
      "node",
      "sqlite",
      "fts5",
      "sqlite-vec",
      "git",
      "bubblewrap",
      "qemu",
      "kvm",
      "tcg",
      "vhost-vsock",
      "cell limits",
      "cell start",
    ]);
    const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    expect(byName.node?.detail).toContain(process.version);
    expect(byName.fts5?.status).toBe("ok");
    expect(byName["sqlite-vec"]?.status).toBe("ok");
    if (byName.bubblewrap?.status === "ok") {
      for (const limit of [
        "cell memory",
        "cell processes",
        "brain disk quota",
        "workspace",
        "tool processes",
      ])
        expect(byName["cell limits"]?.detail).toContain(limit);
    }
    for (const c of report.checks) if (c.status === "missing") expect(c.disables).toBeTruthy();
    // Run from its sources, the CLI starts cells from the bundle when it was built after the last change to
    // them, else from the sources too, and says so.
    if (defaultRuntime().kind === "bundle") expect(byName["cell start"]?.status).toBe("ok");
    else
      expect(byName["cell start"]).toMatchObject({
        status: "warn",
        detail: expect.stringContaining("from the sources"),
      });
    expect(report.cellBackend.reason.length).toBeGreaterThan(0);
  });

  it("says whether microVM cells start from the snapshot their image's build made", async () => {
    const manifest = {
      built_at: new Date().toISOString(),
      kernel_package: "linux-image-cloud-amd64",
      kernel_version: "6.1.0",
      modules: [],
      node_version: process.version,
      runtime_packages: 0,
      rootfs_bytes: 0,
      initramfs_bytes: 0,
    };
    const check = async (extra: Record<string, unknown>) => {
      const env = { IRONCLAW_HOME: await homeWithImage({ ...manifest, ...extra }) };
      // doctor finds the image directory through process.env, not the CLI's env: swap it for the call.
      const { stdout } = await runIronclawInProcess(["doctor", "--json"], { env, processEnv: true });
      await rm(home, { recursive: true, force: true });
      return (JSON.parse(stdout) as Report).checks.find((c) => c.name === "microvm start");
    };
    expect(await check({ startup_snapshot: "made" })).toMatchObject({ status: "ok" });
    expect(
      await check({ startup_snapshot: "the snapshot VM did not power off within 300000 ms" }),
    ).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("did not power off"),
    });
    expect(await check({})).toMatchObject({ status: "warn", detail: expect.stringContaining("predates") });
  });

  // The binary once: the probes it runs as a real process, and its real stdout and exit code.
  it("prints a readable table with the backend choice", async () => {
    const { code, stdout } = await runIronclaw(["doctor"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\[ok {2}\] node {2,}Node\.js v/m);
    expect(stdout).toMatch(/^cell backend \(auto\): /m);
  });
});
