import { type ChildProcess, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openHostDb, UserStore } from "../../src/warden/index.js";
import { SUITE_BACKENDS } from "../cells/suite-backends.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { processesOfUid } from "../support/process-table.js";
import { startServeProcess } from "../support/serve-process.js";
import { api, startWardenHarness, testBackend } from "../support/warden-harness.js";

// `ironclaw serve` with [cells] pool_size: blank cells wait for users and serve their first turn.
const asRoot = process.getuid?.() === 0;
const unavailable = SUITE_BACKENDS.bwrap?.().unavailable;
// A start of the pool's uid counter no other warden on this host is using, so the processes found are ours.
const FIRST_UID = 2_000_000_000 + Math.floor(Math.random() * 1_000_000) * 64;

let home = "";
let model: ModelServer;
const tokens: Record<string, string> = {};
const daemons: ChildProcess[] = [];

async function health(url: string): Promise<{ running: number; pooled: number }> {
  const body = (await (await fetch(`${url}/health`)).json()) as {
    data: { cells: { running: number; pooled: number } };
  };
  return body.data.cells;
}

async function waitForPool(url: string, pooled: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await health(url)).pooled >= pooled) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the pool never held ${pooled} cells`);
}

/** The cgroup (pids hierarchy) a process is in, e.g. `/ironclaw/ada-2000000000`. */
function pidsGroup(pid: number): string | undefined {
  const line = readFileSync(`/proc/${pid}/cgroup`, "utf8")
    .split("\n")
    .find((l) => /:pids:|^0::/.test(l));
  return line?.slice(line.lastIndexOf(":") + 1);
}

function runAsUid(uid: number, command: string[]): { ok: boolean; out: string } {
  const run = spawnSync("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", ...command]);
  return { ok: run.status === 0, out: `${run.stdout}${run.stderr}` };
}

/** What a probe as `uid` reads of a file in the brain of the cell whose processes run as `owner`. */
function readInCellOf(owner: number, uid: number, file: string): { ok: boolean; out: string }[] {
  return processesOfUid(owner).map((pid) => runAsUid(uid, ["cat", `/proc/${pid}/root/mnt/brain/${file}`]));
}

beforeAll(async () => {
  model = await startModelServer();
  home = await mkdtemp(join(tmpdir(), "ironclaw-pool-"));
  await writeFile(
    join(home, "ironclawd.toml"),
    `[cells]\nbackend = "bwrap"\npool_size = 1\n\n` +
      `[providers.local]\nbase_url = "${model.url}"\napi_key_env = "TEST_MODEL_KEY"\n\n` +
      '[new_brains]\nprovider = "local"\nmodel = "test-model"\nembedding_provider = "local"\nembedding_model = "test-embed"\n',
  );
  await mkdir(join(home, "users"), { recursive: true, mode: 0o700 });
  await writeFile(join(home, "users", ".pool-uid"), String(FIRST_UID));
  const db = openHostDb(home);
  const users = new UserStore(db);
  for (const name of ["ada", "bob"]) tokens[name] = (await users.add(name)).token;
  db.close();
}, 60_000);
afterAll(async () => {
  for (const d of daemons) d.kill("SIGKILL");
  await model?.close();
  await rm(home, { recursive: true, force: true });
});

describe.skipIf(!asRoot || unavailable !== undefined)("a warden with a pool of blank cells", () => {
  it("serves a user's first turn from a pooled cell, keeps users apart, and stops pooled cells on SIGTERM", async () => {
    const { child, url } = await startServeProcess(home);
    daemons.push(child);
    await waitForPool(url, 1);
    // The pooled cell is up before anyone asks: its processes run as the pool's first uid, in a pool cgroup.
    const waiting = processesOfUid(FIRST_UID);
    expect(waiting.length).toBeGreaterThan(0);
    expect(pidsGroup(waiting[0] ?? 0)).toMatch(new RegExp(`/ironclaw/pool-${FIRST_UID}-`));

    model.enqueue(reply.text("Hello Ada."));
    const ada = api(url, tokens.ada);
    const first = (await (await ada("POST", "/api/chat", { text: "hi" })).json()) as {
      data: { text: string };
    };
    expect(first.data.text).toBe("Hello Ada.");
    // The same processes answered: the pooled cell became ada's, its cgroup renamed for her.
    expect(waiting.every((pid) => processesOfUid(FIRST_UID).includes(pid))).toBe(true);
    expect(pidsGroup(waiting[0] ?? 0)).toBe(`/ironclaw/ada-${FIRST_UID}`);
    const note = await ada("PUT", "/api/brain/file", { path: "ada-secret.md", content: "ada's secret\n" });
    expect(note.status).toBe(200);

    // The pool refilled in the background with the next uid; bob gets that cell, not ada's.
    await waitForPool(url, 1);
    model.enqueue(reply.text("Hello Bob."));
    const bob = api(url, tokens.bob);
    const second = (await (await bob("POST", "/api/chat", { text: "hi" })).json()) as {
      data: { text: string };
    };
    expect(second.data.text).toBe("Hello Bob.");
    const bobUid = FIRST_UID + 1;
    expect(processesOfUid(bobUid).map(pidsGroup)).toContain(`/ironclaw/bob-${bobUid}`);
    const listed = (await (await bob("GET", "/api/brain/files")).json()) as {
      data: { entries: Array<{ name: string }> };
    };
    expect(listed.data.entries.map((e) => e.name)).not.toContain("ada-secret.md");
    // From the host, bob's cell uid cannot reach into ada's cell for her brain; ada's own uid can (the probe works).
    const asBob = readInCellOf(FIRST_UID, bobUid, "ada-secret.md");
    expect(asBob.length).toBeGreaterThan(0);
    for (const probe of asBob) {
      expect(probe.ok, probe.out).toBe(false);
      expect(probe.out).toContain("Permission denied");
    }
    expect(readInCellOf(FIRST_UID, FIRST_UID, "ada-secret.md").map((p) => p.out)).toContain("ada's secret\n");

    // SIGTERM stops ada's and bob's cells and the pool's waiting one: no process, cgroup or loop device stays.
    await waitForPool(url, 1);
    const uids = [FIRST_UID, bobUid, FIRST_UID + 2];
    expect(processesOfUid(FIRST_UID + 2).length).toBeGreaterThan(0);
    child.kill("SIGTERM");
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    for (const uid of uids) expect(processesOfUid(uid)).toEqual([]);
    const groups = ["pids", "memory"].flatMap((h) => cgroupNames(join("/sys/fs/cgroup", h)));
    for (const uid of uids)
      expect(groups.filter((g) => g.endsWith(`-${uid}`) || g.includes(`-${uid}-`))).toEqual([]);
    const loops = spawnSync("losetup", ["-a"]).stdout.toString();
    expect(loops).not.toContain(home);
  }, 240_000);
});

describe.skipIf(!asRoot || unavailable !== undefined)("a pooled warden after an idle stop", () => {
  it("serves the user's next message from a pooled cell again, not a cold start", async () => {
    const h = await startWardenHarness({
      // 0.02 minutes: the cell stops after 1.2 s without traffic.
      configure: (config) => ({
        ...config,
        cells: { ...config.cells, pool_size: 1, idle_stop_minutes: 0.02 },
      }),
    });
    try {
      const events: string[] = [];
      h.warden.context.cells.manager.onEvent((e) => {
        if (e.userId === "dora") events.push(e.kind === "started" ? `started warm=${e.warm}` : e.kind);
      });
      const chat = api(h.url, await h.addUser("dora"));
      const turn = async (text: string) => {
        await h.warden.context.cells.prewarm();
        h.model.enqueue(reply.text(text));
        const answer = (await (await chat("POST", "/api/chat", { text: "hi" })).json()) as {
          data: { text: string };
        };
        return answer.data.text;
      };
      expect(await turn("First.")).toBe("First.");
      for (let i = 0; i < 100 && !events.includes("stopped"); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(await turn("Back again.")).toBe("Back again.");
      expect(events).toEqual(["started warm=true", "stopped", "started warm=true"]);
    } finally {
      await h.close();
    }
  }, 120_000);
});

describe("a warden whose backend cannot start blank cells", () => {
  it("pools nothing and starts a user's cell cold", async () => {
    const h = await startWardenHarness({ backend: testBackend("process") });
    try {
      await h.warden.context.cells.prewarm();
      expect((await health(h.url)).pooled).toBe(0);
      h.model.enqueue(reply.text("Started cold."));
      const chat = api(h.url, await h.addUser("cy"));
      const answer = (await (await chat("POST", "/api/chat", { text: "hi" })).json()) as {
        data: { text: string };
      };
      expect(answer.data.text).toBe("Started cold.");
      expect((await health(h.url)).running).toBe(1);
    } finally {
      await h.close();
    }
  }, 120_000);
});

/** Every cgroup directory name under a hierarchy (v1) or the unified root, a few levels deep. */
function cgroupNames(root: string, depth = 4): string[] {
  if (depth === 0 || !existsSync(root)) return [];
  const names: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    names.push(entry.name, ...cgroupNames(join(root, entry.name), depth - 1));
  }
  return names;
}
