import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { CHECK_NAMES, verifyEvidence } from "../../src/attest/index.js";
import type { BranchNode } from "../../src/contracts/index.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness } from "../support/warden-harness.js";
import { runIronclawInProcess } from "./run-cli.js";

// Provenance end to end, as a user would walk it: a chat session of three turns through a real warden (the real
// agent on a fake cell, the scripted model) that each remember a fact, exported as an evidence folder by the CLI,
// verified offline, imported under another IRONCLAW_HOME, diffed and restored; then every single flipped byte
// of a signed or hashed file in the folder is caught by verify, naming the check.

const FACTS = ["Ada's bike is green", "Ada's cat is called Turing", "Ada's train leaves at 7:42"];
const base = mkdtempSync(join(tmpdir(), "ironclaw-attest-journey-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A small seeded generator, so a failing flip names the same file and offset on every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

async function chatSession(home: string): Promise<{ greeting: string; session: string }> {
  const h = await startWardenHarness({ backend: createFakeCellBackend(), home });
  try {
    const call = api(h.url, await h.addUser("ada"));
    let certified = 0;
    const turn = async (text: string, sessionId?: string) => {
      const response = await call("POST", "/api/chat", {
        text,
        ...(sessionId ? { session_id: sessionId } : {}),
      });
      expect(response.status).toBe(200);
      const id = ((await response.json()) as { data: { session_id: string } }).data.session_id;
      // Certified after the reply went out: wait for it, so that each turn's record is a node of its own.
      certified += 1;
      for (;;) {
        const listed = await call("GET", "/api/attest/certificates");
        if (((await listed.json()) as { data: { total: number } }).data.total >= certified) break;
        await sleep(25);
      }
      return id;
    };
    // A session before: the state the journey starts from, certified in a session the export leaves out.
    h.model.enqueue(reply.text("Hello, Ada."));
    const greeting = await turn("hello");
    let session: string | undefined;
    for (const fact of FACTS) {
      h.model.enqueue(
        reply.toolCalls([
          { name: "memory", arguments: { action: "remember", target: "memory", text: fact } },
        ]),
        reply.text("Noted."),
      );
      session = await turn(`Remember: ${fact}`, session);
    }
    return { greeting, session: session as string };
  } finally {
    await h.close();
  }
}

const cli = (home: string, args: string[]) => runIronclawInProcess(args, { env: { IRONCLAW_HOME: home } });

const nodesIn = (dir: string) =>
  readdirSync(join(dir, "nodes")).map((name) => ({
    name,
    node: JSON.parse(readFileSync(join(dir, "nodes", name), "utf8")) as BranchNode,
  }));

describe("a certified chat session, exported, verified, imported, diffed and restored", {
  timeout: 120_000,
}, () => {
  it("walks the whole journey through the CLI, and verify catches any flipped byte", async () => {
    const home = join(base, "home");
    const { greeting, session } = await chatSession(home);
    expect(session).not.toBe(greeting);

    const dir = join(base, "evidence");
    const keyFile = join(base, "state.key");
    const exported = await cli(home, ["attest", "export", session, dir, "--key-out", keyFile, "--json"]);
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    const summary = JSON.parse(exported.stdout) as { kind: string; user: string; nodes: string[] };
    expect(summary).toMatchObject({ kind: "session", user: "ada", certificates: 3 });
    const [first, , third] = summary.nodes as [string, string, string];
    expect(new Set(summary.nodes).size).toBe(3);
    // The session's three certificates, not the greeting's; its nodes, and the greeting's state they start from,
    // as the history holds it (attesting nothing, since its certificate stays out).
    expect(readdirSync(join(dir, "certificates"))).toHaveLength(3);
    const nodes = nodesIn(dir);
    const start = nodes.find(
      (n) => n.node.node_id === nodes.find((m) => m.node.node_id === first)?.node.parent_node_id,
    );
    expect(start?.node.attestation.proof_ref).toBeNull();
    expect(nodes.filter((n) => n.node.attestation.proof_ref !== null)).toHaveLength(3);

    const verified = await cli(home, ["verify", dir]);
    expect(verified.code).toBe(0);
    for (const check of ["proof", "commit_pin", "artifact_hash", "mode_fields"])
      expect(verified.stdout.match(new RegExp(`  ${check} +pass `, "g"))).toHaveLength(3);
    expect(verified.stdout).toContain("all pass");

    // The brain travels in the bundle: under a fresh home it is the brain the session left.
    const fresh = join(base, "fresh");
    const imported = await cli(fresh, ["brain", "import", dir, "--user", "ada", "--key-file", keyFile]);
    expect(imported.code).toBe(0);
    const memoryOf = (h: string) => readFileSync(join(h, "users", "ada", "brain", "memory.md"), "utf8");
    expect(memoryOf(fresh)).toBe(memoryOf(home));
    for (const fact of FACTS) expect(memoryOf(fresh)).toContain(fact);

    // The history (kept where the brain lived) shows the session's three changes to memory.md, and beside them
    // only the day's log and transcripts the turns wrote.
    const startId = start?.node.node_id as string;
    const diff = await cli(home, ["brain", "diff", startId, third, "--user", "ada", "--json"]);
    expect(diff.code).toBe(0);
    const changes = JSON.parse(diff.stdout) as { changed: string[]; added: string[]; patch: string };
    expect(changes.changed).toContain("memory.md");
    expect(
      [...changes.added, ...changes.changed].filter(
        (p) => p !== "memory.md" && !/^(logs|sessions)\//.test(p),
      ),
    ).toEqual([]);
    const memoryPatch = changes.patch.slice(changes.patch.indexOf("memory.md"));
    const section = memoryPatch.split(/\ndiff --git /)[0] ?? "";
    const removed = section.split("\n").filter((l) => l.startsWith("-") && !l.startsWith("---"));
    expect(removed).toEqual([]);
    for (const fact of FACTS)
      expect(section.split("\n").filter((l) => l.startsWith("+") && l.includes(fact))).toHaveLength(1);

    const restored = await cli(home, ["brain", "restore", first, "--user", "ada", "--json"]);
    expect(restored.code).toBe(0);
    expect(memoryOf(home)).toContain(FACTS[0]);
    expect(memoryOf(home)).not.toContain(FACTS[2]);

    // After the restore the session exports again (the bundle now a later state) and the chain still verifies.
    const again = join(base, "evidence-after-restore");
    const second = await cli(home, [
      "attest",
      "export",
      session,
      again,
      "--key-out",
      join(base, "k2"),
      "--json",
    ]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ brain_moved_on: { ended_at: third } });
    expect((await cli(home, ["verify", again])).code).toBe(0);

    // Every signed or hashed file: certificates, proofs, the attested nodes, the sealed bundle.
    const targets = [
      ...readdirSync(join(dir, "certificates")).map((n) => ({
        file: `certificates/${n}`,
        checks: ["artifact_hash", "proof"],
      })),
      ...readdirSync(join(dir, "proofs")).map((n) => ({ file: `proofs/${n}`, checks: ["proof"] })),
      ...nodes
        .filter((n) => n.node.attestation.proof_ref !== null)
        .map((n) => ({ file: `nodes/${n.name}`, checks: ["proof", "commit_pin", "artifact_hash", "chain"] })),
      ...readdirSync(join(dir, "bundles")).map((s) => ({
        file: `bundles/${s}/state_bundle.tar.enc`,
        checks: ["bundle_hash"],
      })),
    ];
    expect(targets).toHaveLength(3 + 3 + 3 + 1);
    const random = seeded(36);
    for (const target of targets) {
      const path = join(dir, target.file);
      const original = readFileSync(path);
      const offsets = [
        0,
        original.length - 1,
        ...[0, 1, 2].map(() => Math.floor(random() * original.length)),
      ];
      for (const offset of offsets) {
        const flipped = Buffer.from(original);
        flipped[offset] = (flipped[offset] as number) ^ (1 + Math.floor(random() * 255));
        writeFileSync(path, flipped);
        const report = verifyEvidence(dir);
        const failed = [...report.certificates.flatMap((c) => c.checks), ...report.chain].filter(
          (c) => c.status === "fail",
        );
        const where = `${target.file} byte ${offset}`;
        expect(report.ok, where).toBe(false);
        expect(
          failed.map((c) => c.check).filter((c) => target.checks.includes(c)),
          where,
        ).not.toEqual([]);
        expect(CHECK_NAMES).toEqual(expect.arrayContaining(failed.map((c) => c.check)));
      }
      writeFileSync(path, original);
    }
    // And through the CLI: the exit code and the check's name.
    const bundle = targets.at(-1)?.file as string;
    const bytes = readFileSync(join(dir, bundle));
    bytes[7] = (bytes[7] as number) ^ 0x40;
    writeFileSync(join(dir, bundle), bytes);
    const broken = await cli(home, ["verify", dir]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/bundle_hash +FAIL /);
  });
});
