import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePublicKeyPem } from "../../src/attest/index.js";
import { bundleLocatorSchema, nextTokensSchema, resultJsonSchema } from "../../src/contracts/index.js";
import { sha256Hex } from "../../src/core/index.js";
import { initBrain } from "../../src/memory/index.js";
import { runIronclaw, runIronclawInProcess } from "./run-cli.js";

let root: string;
let homeA: string;
let homeB: string;
let evidence: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-cli-attest-"));
  homeA = join(root, "home-a");
  homeB = join(root, "home-b");
  evidence = join(root, "evidence");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const on = (home: string) => ({ env: { IRONCLAW_HOME: home } });
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as unknown;

/** Each child process is a whole CLI start (seconds on a loaded host); the checks do not depend on how long. */
describe("ironclaw attest export and brain import", { timeout: 180_000 }, () => {
  let brain: string;
  let second: { state_id: string; bundle_dir: string };

  it("exports a directory brain twice: two states, one ratchet step apart, each folder to its contracts", async () => {
    brain = join(homeA, "users", "alice", "brain");
    await initBrain(brain);
    writeFileSync(join(brain, "memory.md"), "- likes tea\n");
    const db = new Database(join(brain, "db", "ironclaw.db"));
    db.exec("CREATE TABLE IF NOT EXISTS facts (text TEXT); INSERT INTO facts VALUES ('tea');");
    db.close();
    symlinkSync("/etc/passwd", join(brain, "passwd"));

    const first = await runIronclaw(
      ["attest", "export", "alice", evidence, "--key-out", join(root, "k0")],
      on(homeA),
    );
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/exported the brain of alice as state [0-9a-f-]{36} \(ratchet step 0\)/);
    expect(first.stdout).toContain("left out        passwd (a symbolic link)");

    writeFileSync(join(brain, "memory.md"), "- likes tea\n- and green tea\n");
    const out = await runIronclaw(["attest", "export", "alice", evidence, "--json"], on(homeA));
    expect(out.code).toBe(0);
    const summary = JSON.parse(out.stdout) as Record<string, unknown> & {
      state_id: string;
      bundle_dir: string;
      key: string;
    };
    second = summary;
    expect(summary).toMatchObject({
      ratchet_step: 1,
      parent_state_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    writeFileSync(join(root, "k1"), summary.key);
    expect(readdirSync(join(evidence, "bundles"))).toHaveLength(2);

    const dir = summary.bundle_dir;
    const sealed = readFileSync(join(dir, "state_bundle.tar.enc"));
    const locator = bundleLocatorSchema.parse(readJson(join(dir, "bundle_locator_next.json")));
    expect(locator).toMatchObject({ bundle_sha256: `sha256:${sha256Hex(sealed)}`, ratchet_step: 1 });
    expect(resultJsonSchema.parse(readJson(join(dir, "result.json"))).bundle_sha256).toBe(
      locator.bundle_sha256,
    );
    expect(nextTokensSchema.parse(readJson(join(dir, "next_tokens.json"))).ratchet).toEqual({
      current_step: 1,
      next_step: 2,
    });
    expect(readFileSync(join(root, "k0"), "utf8")).not.toContain(summary.key);
  });

  it("imports the latest state under a fresh IRONCLAW_HOME with its key; the old step's key is refused by GCM", async () => {
    const keyless = await runIronclawInProcess(["brain", "import", evidence, "--user", "alice"], on(homeB));
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toMatch(/--key-file: is required: .* holds a state bundle it opens/);
    const wrong = await runIronclaw(
      ["brain", "import", evidence, "--user", "alice", "--key-file", join(root, "k0")],
      on(homeB),
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/failed AES-256-GCM authentication/);
    expect(readdirSync(join(homeB, "users", "alice")).filter((n) => n.startsWith("brain"))).toEqual([]);

    const ok = await runIronclaw(
      ["brain", "import", evidence, "--user", "alice", "--key-file", join(root, "k1")],
      on(homeB),
    );
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`restored the brain of alice from state ${second.state_id}`);
    const restored = join(homeB, "users", "alice", "brain");
    expect(readFileSync(join(restored, "memory.md"), "utf8")).toBe("- likes tea\n- and green tea\n");
    expect(readFileSync(join(restored, "soul.md"))).toEqual(readFileSync(join(brain, "soul.md")));
    const db = new Database(join(restored, "db", "ironclaw.db"), { readonly: true });
    expect(db.prepare("SELECT text FROM facts").pluck().all()).toEqual(["tea"]);
    db.close();
  });

  it("refuses to replace an existing brain unless --force, and while a warden runs on the home; --force moves it aside", async () => {
    const args = ["brain", "import", second.bundle_dir, "--user", "alice", "--key-file", join(root, "k1")];
    const refused = await runIronclawInProcess(args, on(homeB));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/alice already has a brain .*pass --force/);
    // A warden on the home (this process stands in as its live pid) may start the cell on the brain at any message.
    const address = join(homeB, "warden.address.json");
    writeFileSync(address, JSON.stringify({ url: "http://127.0.0.1:1", pid: process.pid, started_at: "x" }));
    const inUse = await runIronclawInProcess([...args, "--force"], on(homeB));
    rmSync(address);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/a warden runs on this home .*stop it before replacing the brain of alice/);
    const forced = await runIronclawInProcess([...args, "--force"], on(homeB));
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/moved the previous brain to .*brain\.before-import-/);
  });

  it("a flipped byte in the bundle is refused by the bundle hash check before anything is decrypted", async () => {
    const file = join(second.bundle_dir, "state_bundle.tar.enc");
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 1;
    writeFileSync(file, bytes);
    const out = await runIronclawInProcess(
      ["brain", "import", second.bundle_dir, "--user", "bob", "--key-file", join(root, "k1")],
      on(homeB),
    );
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/bundle_sha256 check failed/);
  });

  it("the evidence folder carries the host's public key; a folder of another host or a taken --key-out gets nothing", async () => {
    const pem = readFileSync(join(evidence, "public-key.pem"), "utf8");
    expect(parsePublicKeyPem(pem).asymmetricKeyType).toBe("ed25519");
    const foreign = await runIronclawInProcess(["attest", "export", "alice", evidence], on(homeB));
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/public-key\.pem is another host's public key/);
    const taken = await runIronclawInProcess(
      ["attest", "export", "alice", evidence, "--key-out", join(root, "k0")],
      on(homeA),
    );
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/--key-out: .*k0 exists/);
    expect(readdirSync(join(evidence, "bundles"))).toHaveLength(2);
  });
});
