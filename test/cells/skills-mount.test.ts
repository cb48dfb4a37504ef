import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CellHandle,
  createBwrapBackend,
  createProcessBackend,
  defaultRuntime,
  WarmPool,
} from "../../src/cells/index.js";
import { createLogger } from "../../src/core/index.js";
import { initBrain } from "../../src/memory/index.js";
import { HostProviders, serveCellRequests } from "../../src/warden/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { shellIn } from "./cell-shell.js";
import { SUITE_BACKENDS } from "./suite-backends.js";

// A user's installed skills inside their cell: readable at /mnt/skills, and nothing in the cell can change them,
// whether the cell started with its user (cold) or was a blank pool cell handed to them.
const asRoot = process.getuid?.() === 0;
const unavailable = SUITE_BACKENDS.bwrap?.().unavailable;
const images = asRoot && existsSync("/dev/loop-control");
const OWNER = { uid: 61_031, gid: 61_031 };
const POOL = { first: 62_600, count: 200 };
// Tools run in the cell's own namespaces, without their nested sandbox: the weaker case, where the probe can
// make a user namespace of its own.
const OPTIONS = { brainImages: images, toolSandbox: false, onWarning: () => {} };
const SKILL = "---\nname: weather\ndescription: Forecasts.\n---\nUse curl.\n";

/** What the cell's own uid gets: the skill's text, and the kernel's refusal of each write (a control beside). */
const CELL_PROBE = [
  "cat /mnt/skills/weather/SKILL.md",
  "touch /tmp/workspace/control && echo control-written",
  "echo x >> /mnt/skills/weather/SKILL.md || echo append-refused",
  "touch /mnt/skills/planted 2>&1; mkdir /mnt/skills/new 2>&1",
  "mount -o remount,rw /mnt/skills 2>&1 || echo remount-refused",
].join("; ");

/*
 * An escape to root of a user namespace of the cell's own (what the cell can make when tools run without their
 * nested sandbox): a remount of /mnt/skills read-write with mount(2) itself, MS_REMOUNT|MS_BIND|MS_NOSUID|MS_NODEV
 * (4134), is refused; the same remount of the cell's /tmp, read-only then read-write, is the control: it works,
 * so the refusal is the lock the kernel keeps on the skills' read-only flag. perl makes the raw system call
 * (165 on x86-64), so no mount(8) check of its own stands in for the kernel's.
 */
const ROOT_PROBE = `unshare -Urm perl -e '
  for (["/tmp", 4135], ["/tmp", 4134], ["/mnt/skills", 4134]) {
    my ($path, $flags) = @$_;
    my $result = syscall(165, 0, $path, 0, $flags, 0);
    print "$path $flags ", ($result == 0 ? "remounted" : "refused: $!"), "\\n";
  }
  print open(my $f, ">", "/mnt/skills/planted") ? "planted\\n" : "plant refused: $!\\n";
'`;

describe.skipIf(!asRoot || unavailable !== undefined)("installed skills in a bwrap cell", () => {
  let home = "";
  const cells: CellHandle[] = [];
  const pools: WarmPool[] = [];
  const installSkill = async (user: string) => {
    const dir = join(home, "users", user, "skills", "weather");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "SKILL.md"), SKILL);
  };
  const expectContained = async (cell: CellHandle, user: string) => {
    const out = (await shellIn(cell, CELL_PROBE)).stdout;
    expect(out).toContain(SKILL);
    expect(out).toContain("control-written");
    expect(out).toContain("append-refused");
    expect(out.match(/Read-only file system/g)?.length).toBe(2);
    expect(out).toContain("remount-refused");
    const root = (await shellIn(cell, ROOT_PROBE)).stdout;
    expect(root).toContain("/tmp 4135 remounted\n/tmp 4134 remounted\n");
    expect(root).toContain("/mnt/skills 4134 refused: Operation not permitted\n");
    expect(root).toContain("plant refused: Read-only file system\n");
    expect(await readdir(join(home, "users", user, "skills"))).toEqual(["weather"]);
    expect(readFileSync(join(home, "users", user, "skills", "weather", "SKILL.md"), "utf8")).toBe(SKILL);
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "ironclaw-skills-mount-"));
  });
  afterAll(async () => {
    await Promise.all(cells.map((c) => c.stop({ timeoutMs: 5_000 })));
    await Promise.all(pools.map((p) => p.drain()));
    await rm(home, { recursive: true, force: true });
  }, 60_000);

  it("shows a cold-started cell its skills read-only, even to root of its user namespace", async () => {
    await installSkill("cold");
    const backend = createBwrapBackend({ runtime: defaultRuntime(), ...OPTIONS });
    const cell = await backend.start({
      userId: "cold",
      userDir: join(home, "users", "cold"),
      handler: "shell",
      startTimeoutMs: 60_000,
      runAs: OWNER,
    });
    cells.push(cell);
    await expectContained(cell, "cold");
  }, 90_000);

  it("shows a pooled cell handed to its user their skills read-only, and an empty folder to a user with none", async () => {
    await installSkill("pooled");
    const backend = createBwrapBackend({
      runtime: defaultRuntime(),
      ...OPTIONS,
      poolUids: POOL,
    });
    const pool = new WarmPool({
      backend,
      usersDir: join(home, "users"),
      size: 0,
      blank: 2,
      spec: { handler: "shell" },
    });
    pools.push(pool);
    await pool.prewarmBlank();
    const take = async (user: string) => {
      const cell = await pool.takeBlank({
        userId: user,
        userDir: join(home, "users", user),
        handler: "shell",
      });
      if (!cell) throw new Error(`no blank cell for ${user}`);
      cells.push(cell);
      return cell;
    };
    await expectContained(await take("pooled"), "pooled");
    const none = await take("no-skills");
    expect((await shellIn(none, "ls -A /mnt/skills; touch /mnt/skills/x 2>&1")).stdout).toContain(
      "Read-only file system",
    );
  }, 90_000);
});

/** A brain whose agent talks to the local model server, with only the file tool. */
async function seedAgentBrain(userDir: string, modelUrl: string): Promise<void> {
  const brain = join(userDir, "brain");
  await initBrain(brain);
  await writeFile(
    join(brain, "config/irowclaw.toml"),
    `default_agent = "assistant"\n\n[providers.local]\nbase_url = "${modelUrl}"\n\n[tools]\nallow = ["file"]\n`,
  );
  await writeFile(
    join(brain, "config/agents/assistant.toml"),
    'name = "assistant"\nprovider = "local"\nmodel = "test-model"\n',
  );
}

describe("an agent in a cell with installed skills", () => {
  let server: ModelServer;
  let home = "";
  beforeAll(async () => {
    server = await startModelServer();
    home = await mkdtemp(join(tmpdir(), "ironclaw-skills-agent-"));
  });
  afterAll(async () => {
    await server.close();
    await rm(home, { recursive: true, force: true });
  });

  const backends = [
    ["process", () => createProcessBackend({ runtime: defaultRuntime(), onWarning: () => {} })],
    ...(asRoot && unavailable === undefined
      ? [["bwrap", () => createBwrapBackend({ runtime: defaultRuntime(), ...OPTIONS })] as const]
      : []),
  ] as const;

  it.each(backends)(
    "lists them in its prompt and reads one with its file tool (%s)",
    async (name, make) => {
      const userDir = join(home, name);
      await seedAgentBrain(userDir, server.url);
      await mkdir(join(userDir, "skills", "weather"), { recursive: true });
      await writeFile(join(userDir, "skills", "weather", "SKILL.md"), SKILL);
      const cell = await make().start({
        userId: `skills-${name}`,
        userDir,
        handler: "agent",
        startTimeoutMs: 90_000,
        ...(name === "bwrap" ? { runAs: OWNER } : {}),
      });
      const detach = serveCellRequests(cell, {
        userId: `skills-${name}`,
        providers: new HostProviders({ providers: { local: { base_url: server.url, models: [] } } }, {}),
        egress: {
          policy: "deny",
          allow_hosts: [],
          deny_hosts: [],
          allow_private: false,
          max_bytes: 1 << 20,
          timeout_ms: 5_000,
          secret_uses_per_minute: 120,
          proxy: false,
        },
        audit: () => {},
        logger: createLogger("test", { level: "silent" }),
      });
      try {
        server.reset();
        const location =
          name === "bwrap" ? "/mnt/skills/weather/SKILL.md" : join(userDir, "skills", "weather", "SKILL.md");
        server.enqueue(
          reply.toolCalls([{ name: "file", arguments: { action: "read", path: location } }]),
          reply.text("Rain."),
        );
        const done = await cell.call({ type: "UserMessage", text: "Weather?" }, { timeoutMs: 60_000 });
        expect(done).toMatchObject({ type: "TurnComplete", text: "Rain." });
        const [first, second] = server.chatRequests();
        expect(String(first?.messages[0]?.content)).toContain(
          `<name>weather</name><description>Forecasts.</description><location>${location}</location>`,
        );
        expect(second?.messages.at(-1)).toMatchObject({ role: "tool", content: SKILL });
      } finally {
        detach();
        await cell.stop();
      }
    },
    120_000,
  );
});
