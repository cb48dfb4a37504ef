import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../../test/support/model-server.js";
import { createTestBrain, type TestBrain } from "../../../test/support/test-brain.js";
import { type CliIo, UsageError } from "../command.js";
import { runMemoryForget } from "./memory-forget.js";

let server: ModelServer;
let brain: TestBrain;

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  brain = await createTestBrain({ baseUrl: server.url, providerEmbeddings: true });
  brain.write("memory.md", "# Memory\n\n## Boiler\n\nThe boiler code is 4412.\n\n## Tea\n\nGenmaicha.\n");
});
afterEach(() => brain.remove());

async function forget(target: string, flags: { yes?: boolean; json?: boolean; brain?: string } = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (c: Buffer) => out.push(c.toString()));
  stderr.on("data", (c: Buffer) => err.push(c.toString()));
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr, env: {}, cwd: process.cwd() };
  const code = await runMemoryForget(
    {
      target,
      brain: "brain" in flags ? flags.brain : brain.root,
      yes: flags.yes ?? false,
      json: flags.json ?? false,
    },
    io,
  );
  return { code, stdout: out.join(""), stderr: err.join("") };
}

const memory = () => readFileSync(join(brain.root, "memory.md"), "utf8");

describe("ironclaw memory forget", () => {
  it("without --yes shows what would go, with its text, and changes nothing", async () => {
    const { code, stdout } = await forget("boiler code 4412");
    expect(code).toBe(0);
    expect(stdout).toBe(
      "Would forget 1 passage(s); run again with --yes to remove them:\n" +
        "  memory.md › Memory › Boiler (lines 3-5)\n" +
        "    │ ## Boiler\n    │ \n    │ The boiler code is 4412.\n",
    );
    expect(memory()).toContain("4412");
  });

  it("with --yes removes it from the file and the index and records where by hash; --json says so without the text", async () => {
    const { code, stdout } = await forget("boiler code 4412", { yes: true, json: true });
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({
      applied: true,
      places: [{ path: "memory.md", headings: ["Memory", "Boiler"], start_line: 3, end_line: 5 }],
      skipped: [],
    });
    expect(out.places[0].hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(stdout).not.toContain("4412");
    expect(out.purge_ms).toBeGreaterThanOrEqual(0);
    expect(memory()).toBe("# Memory\n\n## Tea\n\nGenmaicha.\n");
    const db = new Database(join(brain.root, "db/ironclaw.db"), { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) AS n FROM chunks WHERE content LIKE '%4412%'").get()).toEqual({
        n: 0,
      });
      expect(db.prepare("SELECT action, actor, path FROM audit_memory_changes").all()).toEqual([
        { action: "forget", actor: "cli", path: "memory.md" },
      ]);
    } finally {
      db.close();
    }
  });

  it("exits 1 when nothing matches or a chunk id is unknown, and says why", async () => {
    const none = await forget("zebra");
    expect(none).toMatchObject({ code: 1, stdout: "Nothing in the brain matches; nothing was forgotten.\n" });
    const gone = await forget("0123456789abcdef0123456789abcdef", { yes: true });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^memory forget: chunk 0123456789abcdef0123456789abcdef not found/);
    expect(memory()).toContain("4412");
  });

  it("refuses an empty target or a missing --brain as usage mistakes naming what is wrong", async () => {
    await expect(forget("   ")).rejects.toThrow(UsageError);
    await expect(forget("   ")).rejects.toThrow(/<target>: must not be empty/);
    await expect(forget("tea", { brain: undefined })).rejects.toThrow(
      /--brain: the brain directory is required/,
    );
  });
});
