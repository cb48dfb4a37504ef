import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentRuntime } from "../../src/agent/index.js";
import { BrainHistory, type BrainTree } from "../../src/attest/index.js";
import { createLogger } from "../../src/core/index.js";
import { TurnCertifier } from "../../src/warden/attest/index.js";
import { WordHashEmbedder } from "../support/word-hash-embedder.js";
import { runIronclawInProcess } from "./run-cli.js";

// A brain disk (brain.ext4, of microVM cells and of bwrap cells under a root warden) is never opened by the
// host: its export carries the certificates and the history the warden recorded from what the cell reported,
// no bundle, and verify passes on it; import rebuilds a directory brain from that history's head.

const DB = "d".repeat(64);
const WORKFLOW_REF = `ironclaw/ironclaw/.github/workflows/ironclaw-0.1.0.yml@${"b".repeat(40)}`;
let root: string;
let homeA: string;
let homeB: string;
let evidence: string;
let lastTree: BrainTree;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-disk-brain-"));
  homeA = join(root, "home-a");
  homeB = join(root, "home-b");
  evidence = join(root, "evidence");
  mkdirSync(join(homeA, "users", "carol"), { recursive: true });
  writeFileSync(join(homeA, "users", "carol", "brain.ext4"), "not really ext4");
  const history = BrainHistory.open(homeA, "carol");
  const certifier = new TurnCertifier({
    home: homeA,
    logger: createLogger("test", { level: "silent" }),
    workflowRef: WORKFLOW_REF,
  });
  for (const fact of ["likes tea", "likes rain"]) {
    // As the cell reports its brain: the markdown tree, byte for byte.
    lastTree = new Map([
      ["memory.md", Buffer.from(`# Memory\n\n- ${fact}\n`)],
      ["soul.md", Buffer.from("# Soul\n\nCalm.\n")],
      ["people/bob.md", Buffer.from("Bob \u00e9crit en fran\u00e7ais\n")],
    ]);
    const entry = await history.record({ cause: `turn ${fact}`, tree: lastTree, dbSnapshotSha256: DB });
    const at = new Date();
    certifier.certify({
      userId: "carol",
      sessionId: "s-1",
      request: { messages: [{ role: "user", content: fact }], profile: null, model: "m", tool_policy: null },
      response: `noted: ${fact}`,
      startedAt: at,
      finishedAt: at,
      recorded: Promise.resolve({ ok: true, entry }),
    });
    await certifier.settle();
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const on = (home: string) => ({ env: { IRONCLAW_HOME: home } });

describe("ironclaw attest export and brain import of a brain disk", { timeout: 60_000 }, () => {
  it("exports everything but the bundle, says so, writes no key; verify passes on the folder", async () => {
    const keyOut = join(root, "carol.key");
    const out = await runIronclawInProcess(
      ["attest", "export", "carol", evidence, "--json", "--key-out", keyOut],
      on(homeA),
    );
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const summary = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ kind: "user", certificates: 2, bundle: null, key_file: null });
    expect(summary.bundle_skipped).toMatch(/the brain is a disk image \(.*brain\.ext4\)/);
    expect(summary.history).toMatchObject({ nodes: 2 });
    expect(existsSync(keyOut)).toBe(false);
    expect(existsSync(join(evidence, "bundles"))).toBe(false);
    for (const part of ["certificates", "proofs", "responses"])
      expect(readdirSync(join(evidence, part))).toHaveLength(2);

    const verified = await runIronclawInProcess(["verify", evidence, "--json"], on(homeA));
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true });

    const text = await runIronclawInProcess(["attest", "export", "carol", join(root, "again")], on(homeA));
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("exported the evidence of carol without a state bundle");
    expect(text.stdout).toMatch(/bundle {10}none: the brain is a disk image/);
    expect(text.stdout).not.toContain("state key");
  });

  it("import rebuilds the brain from the history's head with no key; brain log shows the same nodes", async () => {
    const out = await runIronclawInProcess(["brain", "import", evidence, "--user", "carol"], on(homeB));
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/rebuilt the brain of carol from its history's head .*: 3 markdown files/);
    const brain = join(homeB, "users", "carol", "brain");
    for (const [path, content] of lastTree) expect(readFileSync(join(brain, path))).toEqual(content);
    expect(existsSync(join(brain, "config", "irowclaw.toml"))).toBe(true);

    const log = (home: string) =>
      runIronclawInProcess(["brain", "log", "--user", "carol", "--json"], on(home)).then((r) =>
        (JSON.parse(r.stdout) as Array<{ node: { node_id: string } }>).map((e) => e.node.node_id),
      );
    const nodes = await log(homeB);
    expect(nodes).toHaveLength(2);
    expect(nodes).toEqual(await log(homeA));

    // What a cell runs on this brain: the runtime builds the missing search index from the markdown on open.
    const runtime = await AgentRuntime.open(brain, { embedder: new WordHashEmbedder() });
    try {
      expect(runtime.memory.status().files).toBeGreaterThanOrEqual(3);
    } finally {
      await runtime.close();
    }
  });

  it("refuses a second import (the history exists), a folder with nothing to import, and a microVM host", async () => {
    const again = await runIronclawInProcess(
      ["brain", "import", evidence, "--user", "carol", "--force"],
      on(homeB),
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/carol already has a brain history/);

    const empty = join(root, "empty");
    mkdirSync(empty);
    const nothing = await runIronclawInProcess(["brain", "import", empty, "--user", "dan"], on(homeB));
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/dir: .*holds neither a state bundle .* nor a brain history/);

    const homeC = join(root, "home-c");
    mkdirSync(homeC);
    writeFileSync(join(homeC, "ironclawd.toml"), '[cells]\nbackend = "microvm"\n');
    const microvm = await runIronclawInProcess(["brain", "import", evidence, "--user", "carol"], on(homeC));
    expect(microvm.code).toBe(1);
    expect(microvm.stderr).toMatch(/\[cells\] backend = "microvm".*set \[cells\] backend = "bwrap"/);
    expect(existsSync(join(homeC, "users", "carol"))).toBe(false);
    expect(existsSync(join(homeC, "attest", "history", "carol"))).toBe(false);
  });
});
