import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrainHistory, hashBrainDatabase } from "../../src/attest/index.js";
import { createLogger } from "../../src/core/index.js";
import { initBrain } from "../../src/memory/index.js";
import { TurnCertifier } from "../../src/warden/attest/index.js";
import { runIronclawInProcess } from "./run-cli.js";

// An export carries the user's certified chat turns beside the brain's bundle, and `ironclaw verify` passes on
// the folder: turns certified by the warden's certifier on a real brain history (real git), the CLI run whole.

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-cli-attest-certs-"));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const WORKFLOW_REF = `ironclaw/ironclaw/.github/workflows/ironclaw-0.1.0.yml@${"b".repeat(40)}`;

describe("ironclaw attest export with certified turns", { timeout: 60_000 }, () => {
  it("copies certificates, proofs, responses and nodes; verify passes on the folder", async () => {
    const brain = join(home, "users", "alice", "brain");
    await initBrain(brain);
    const history = BrainHistory.open(home, "alice");
    const certifier = new TurnCertifier({
      home,
      logger: createLogger("test", { level: "silent" }),
      workflowRef: WORKFLOW_REF,
    });
    for (const fact of ["likes tea", "likes coffee", "likes rain"]) {
      writeFileSync(join(brain, "memory.md"), `- ${fact}\n`);
      const dbSnapshotSha256 = await hashBrainDatabase(brain);
      const entry = await history.record({ cause: `turn ${fact}`, brainDir: brain, dbSnapshotSha256 });
      const at = new Date();
      certifier.certify({
        userId: "alice",
        sessionId: "s-1",
        request: {
          messages: [{ role: "user", content: fact }],
          profile: null,
          model: "m",
          tool_policy: null,
        },
        response: `noted: ${fact}`,
        startedAt: at,
        finishedAt: at,
        recorded: Promise.resolve({ ok: true, entry }),
      });
      await certifier.settle();
    }

    const dir = join(home, "exported");
    const env = { env: { IRONCLAW_HOME: home } };
    const out = await runIronclawInProcess(["attest", "export", "alice", dir, "--json"], env);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ certificates: 3 });
    for (const part of ["certificates", "proofs", "responses"])
      expect(readdirSync(join(dir, part))).toHaveLength(3);
    expect(readdirSync(join(dir, "nodes")).length).toBeGreaterThanOrEqual(3);

    const verified = await runIronclawInProcess(["verify", dir, "--json"], env);
    expect(verified.code).toBe(0);
    const report = JSON.parse(verified.stdout) as { ok: boolean; certificates: unknown[] };
    expect(report.ok).toBe(true);
    expect(report.certificates).toHaveLength(3);
  });
});
