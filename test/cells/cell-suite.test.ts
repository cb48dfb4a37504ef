import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CellBackend, type CellHandle, PACKAGE_ROOT } from "../../src/cells/index.js";
import type { EscapeScene } from "./escape-scene.js";
import { SUITE_BACKENDS, type SuiteBackend } from "./suite-backends.js";
import { defineConformance } from "./suite-conformance.js";
import { defineEscapes } from "./suite-escapes.js";

// The default run covers process and bwrap; `npm run test:microvm` sets this to microvm.
const named = process.env.IRONCLAW_TEST_BACKENDS;
const names = (named ?? "process,bwrap").split(",").filter(Boolean);
const backends: SuiteBackend[] = names.map((name) => {
  const make = SUITE_BACKENDS[name];
  if (!make) throw new Error(`unknown backend ${name} in IRONCLAW_TEST_BACKENDS`);
  return make();
});

const RUN_AS = { inmate: { uid: 61_101, gid: 61_101 }, bystander: { uid: 61_102, gid: 61_102 } };

describe.each(backends)("$name cell", (entry) => {
  let home = "";
  let backend: CellBackend;
  let inmate: CellHandle | undefined;
  let bystander: CellHandle | undefined;
  const gone = new WeakSet<CellHandle>();
  const start = async (user: "inmate" | "bystander") => {
    const cell = await backend.start({
      userId: user,
      userDir: join(home, "users", user),
      handler: "shell",
      startTimeoutMs: entry.startTimeoutMs,
      // Under a root warden each user's bwrap cell is its own host uid; other backends ignore this.
      runAs: RUN_AS[user],
    });
    void cell.exited.then(() => gone.add(cell));
    return cell;
  };
  /** The inmate, restarted when an earlier test ended it (crash, bomb, garbage): the brain stays. */
  const liveInmate = async (): Promise<CellHandle> => {
    if (!inmate || inmate.peer.isClosed || gone.has(inmate)) {
      await inmate?.stop({ timeoutMs: 2_000 });
      inmate = await start("inmate");
    }
    return inmate;
  };
  const marker = `bystander-marker-${process.pid}`;
  const secretText = `host-secret-${process.pid}-${Date.now()}`;
  const scene: EscapeScene = {
    backend: entry.name,
    cell: () => {
      if (!inmate) throw new Error("no inmate");
      return inmate;
    },
    bystander: () => {
      if (!bystander) throw new Error("no bystander");
      return bystander;
    },
    secretFile: "",
    secretText,
    bystanderBrainHostPath: "",
    inmateBrainHostPath: "",
    bystanderMarker: marker,
    hostPaths: [],
    caps: entry.caps,
  };

  beforeAll(async () => {
    if (entry.unavailable) return;
    home = await mkdtemp(join(tmpdir(), `ironclaw-${entry.name}-suite-`));
    // A root warden runs bwrap as an unprivileged uid, which must be able to reach the brain directories.
    await chmod(home, 0o755);
    backend = entry.make(home);
    scene.secretFile = join(home, "host-secret.txt");
    scene.bystanderBrainHostPath = entry.brainHostPath(join(home, "users", "bystander"));
    scene.inmateBrainHostPath = join(home, "users", "inmate", "brain");
    scene.hostPaths = [PACKAGE_ROOT, home];
    await writeFile(scene.secretFile, secretText, { mode: 0o644 });
    [inmate, bystander] = await Promise.all([start("inmate"), start("bystander")]);
    const wrote = await bystander.call({
      type: "FileOpRequest",
      op: "write",
      path: `${marker}.md`,
      content: marker,
    });
    expect(wrote).toMatchObject({ type: "FileOpResult" });
  }, 240_000);

  afterAll(async () => {
    await Promise.all([inmate?.stop({ timeoutMs: 5_000 }), bystander?.stop({ timeoutMs: 5_000 })]);
    if (home) await rm(home, { recursive: true, force: true });
  }, 60_000);

  if (entry.unavailable) {
    // A backend that is named, installed, or expected in CI must run: a skip there would pass unnoticed.
    if (named !== undefined || process.env.CI || installed(entry.name)) {
      it(`runs here (expected: named, installed or in CI)`, () => {
        throw new Error(
          `the ${entry.name} backend is expected on this host but cannot run: ${entry.unavailable}`,
        );
      });
    } else {
      console.warn(`[${entry.name} cell] SKIPPED: ${entry.unavailable}`);
      it.skip(`skipped: ${entry.unavailable}`, () => {});
    }
    return;
  }

  // An agent cell with a new brain's defaults (the built-in embedder), for what only the agent shows.
  const startAgent = async (user: string): Promise<CellHandle> =>
    backend.start({
      userId: user,
      userDir: join(home, "users", user),
      handler: "agent",
      startTimeoutMs: entry.startTimeoutMs,
    });
  defineConformance({ entry, liveInmate, startAgent });
  defineEscapes({ entry, liveInmate, startAgent, scene, backend: () => backend });
});

/** Whether the backend's program is installed at all: then being unusable is a failure, not a skip. */
function installed(name: string): boolean {
  if (name === "bwrap") return spawnSync("bwrap", ["--version"]).status === 0;
  if (name === "microvm") return spawnSync("qemu-system-x86_64", ["--version"]).status === 0;
  return true;
}
