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
// verified offline, imported with its brain history under another IRONCLAW_HOME, diffed and restored there, the
// brain going on there and exported again whole; then every single flipped byte of a signed or hashed file in
// the folder is caught by verify, naming the check.

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

/** Tells the warden on `home` one fact per turn in one session, each turn certified before the next. */
async function chatSession(
  home: string,
  facts: readonly string[],
  options: { greet?: boolean } = {},
): Promise<{ greeting: string | undefined; session: string }> {
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
    let greeting: string | undefined;
    if (options.greet) {
      h.model.enqueue(reply.text("Hello, Ada."));
      greeting = await turn("hello");
    }
    let session: string | undefined;
    for (const fact of facts) {
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
    const { greeting, session } = await chatSession(home, FACTS, { greet: true });
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

    // The brain and its history travel in the folder: under a fresh home the brain is the one the session
    // left, and the history is the one it had.
    expect(summary).toMatchObject({ history: { nodes: nodes.length } });
    const fresh = join(base, "fresh");
    const imported = await cli(fresh, ["brain", "import", dir, "--user", "ada", "--key-file", keyFile]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`history of ${nodes.length} nodes to ${third}`);
    const memoryOf = (h: string) => readFileSync(join(h, "users", "ada", "brain", "memory.md"), "utf8");
    expect(memoryOf(fresh)).toBe(memoryOf(home));
    for (const fact of FACTS) expect(memoryOf(fresh)).toContain(fact);
    const logOf = async (h: string) => (await cli(h, ["brain", "log", "--user", "ada", "--json"])).stdout;
    expect(await logOf(fresh)).toBe(await logOf(home));
    const again = await cli(fresh, [
      "brain",
      "import",
      dir,
      "--user",
      "ada",
      "--key-file",
      keyFile,
      "--force",
    ]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already has a brain history");

    // On the fresh home the history shows the session's three changes to memory.md, and beside them only the
    // day's log and transcripts the turns wrote.
    const startId = start?.node.node_id as string;
    const diff = await cli(fresh, ["brain", "diff", startId, third, "--user", "ada", "--json"]);
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
    // Nothing removed; added, each fact under the heading of the time it was remembered, and nothing else.
    const lines = section.split("\n").filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+)/.test(l));
    expect(lines.filter((l) => !l.startsWith("+"))).toEqual([]);
    const added = lines
      .map((l) => l.slice(1))
      .filter((l) => l !== "" && !/^## \d{4}-\d\d-\d\d [\d:]+ UTC$/.test(l));
    expect(added).toEqual(FACTS);

    // Restored there to the session's first state: a new node on top of the head, the home's brain untouched.
    const restored = await cli(fresh, ["brain", "restore", first, "--user", "ada", "--json"]);
    expect(restored.code).toBe(0);
    const restoredNode = (JSON.parse(restored.stdout) as { node: BranchNode }).node;
    expect(restoredNode.parent_node_id).toBe(third);
    expect(summary.nodes).not.toContain(restoredNode.node_id);
    expect(memoryOf(fresh)).toContain(FACTS[0]);
    expect(memoryOf(fresh)).not.toContain(FACTS[2]);
    expect(memoryOf(home)).toContain(FACTS[2]);

    // The brain goes on on the fresh home: a turn there is certified by this host on top of the imported
    // history, and the user's export from it verifies whole, the chain reaching back through the import.
    await chatSession(fresh, ["Ada's bike is blue now"]);
    const moved = join(base, "evidence-fresh");
    const second = await cli(fresh, [
      "attest",
      "export",
      "ada",
      moved,
      "--key-out",
      join(base, "k2"),
      "--json",
    ]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ kind: "user", certificates: 1 });
    const verifiedFresh = await cli(fresh, ["verify", moved]);
    expect(verifiedFresh.stdout).toContain("all pass");
    expect(verifiedFresh.code).toBe(0);
    const movedIds = nodesIn(moved).map((n) => n.node.node_id);
    for (const id of [startId, ...summary.nodes, restoredNode.node_id]) expect(movedIds).toContain(id);

    // At home, once the brain moved on past the session (restored there too), the session exports as the brain
    // is now, saying so, and its chain still verifies.
    expect((await cli(home, ["brain", "restore", first, "--user", "ada"])).code).toBe(0);
    const later = join(base, "evidence-after-restore");
    const movedOn = await cli(home, [
      "attest",
      "export",
      session,
      later,
      "--key-out",
      join(base, "k3"),
      "--json",
    ]);
    expect(movedOn.code).toBe(0);
    expect(JSON.parse(movedOn.stdout)).toMatchObject({ brain_moved_on: { ended_at: third } });
    expect((await cli(home, ["verify", later])).code).toBe(0);

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
      { file: "history/history.bundle", checks: ["bundle_hash"] },
      { file: "history/history.json", checks: ["bundle_hash", "chain"] },
    ];
    expect(targets).toHaveLength(3 + 3 + 3 + 1 + 2);
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
    const bundle = targets.find((t) => t.file.startsWith("bundles/"))?.file as string;
    const bytes = readFileSync(join(dir, bundle));
    bytes[7] = (bytes[7] as number) ^ 0x40;
    writeFileSync(join(dir, bundle), bytes);
    const broken = await cli(home, ["verify", dir]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/bundle_hash +FAIL /);
  });
});
