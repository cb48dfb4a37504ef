import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrainHistory, verifyEvidence } from "../../src/attest/index.js";
import { createBwrapBackend, defaultRuntime } from "../../src/cells/index.js";
import type { Certificate } from "../../src/contracts/index.js";
import { evidenceDirOf, listCertifiedTurns } from "../../src/warden/attest/index.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A root warden with loop devices keeps each brain as a disk image only its cell mounts (the default there):
// the host never opens it, so each turn's state is recorded from what the running cell reports over its channel,
// and every turn's certificate pins a node and verifies whole, as on a host whose brains are directories.
const images = process.getuid?.() === 0 && existsSync("/dev/loop-control");

let h: WardenHarness;
let call: ReturnType<typeof api>;
beforeAll(async () => {
  if (!images) return;
  h = await startWardenHarness({
    backend: createBwrapBackend({ runtime: defaultRuntime(), brainImages: true }),
  });
  call = api(h.url, await h.addUser("alice"));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe.skipIf(!images)("the history of a brain kept as a disk image", () => {
  it("three turns writing memory make three nodes, and every turn's certificate verifies", async () => {
    const userDir = join(h.home, "users", "alice");
    for (const fact of ["likes tea", "likes rain", "plays chess"]) {
      h.model.enqueue(
        reply.toolCalls([
          {
            name: "file",
            arguments: { action: "write", path: "notes/facts.md", content: `# Facts\n\n- ${fact}\n` },
          },
        ]),
        reply.text(`Noted: ${fact}.`),
      );
      const answer = (await (await call("POST", "/api/chat", { text: `remember: ${fact}` })).json()) as {
        data: { text: string };
      };
      expect(answer.data.text).toBe(`Noted: ${fact}.`);
      await h.warden.context.chat.settleCertificates();
    }
    // The brain is the image, never a directory the host could have read instead.
    expect(existsSync(join(userDir, "brain.ext4"))).toBe(true);
    expect(existsSync(join(userDir, "brain"))).toBe(false);

    const history = BrainHistory.open(h.home, "alice");
    const log = await history.log();
    expect(log).toHaveLength(3);
    // The newest state holds the last fact, in the file the agent wrote inside the image.
    const newest = await history.treeOf(log[0]?.node.node_id as string);
    expect(newest.get("notes/facts.md")?.toString()).toBe("# Facts\n\n- plays chess\n");
    expect(newest.has("soul.md")).toBe(true);
    expect([...newest.keys()].every((p) => p.endsWith(".md") && !p.startsWith("db/"))).toBe(true);
    expect(log.map((e) => e.node.state_db.snapshot_hash)).toEqual(
      log.map(() => expect.stringMatching(/^sha256:[0-9a-f]{64}$/)),
    );

    const dir = evidenceDirOf(h.home, "alice");
    const turns = await listCertifiedTurns(dir);
    expect(turns).toHaveLength(3);
    for (const turn of turns) {
      const certificate = JSON.parse(
        readFileSync(join(dir, "certificates", `${turn.job_id}.json`), "utf8"),
      ) as Certificate;
      expect(certificate.commit_sha_required).toMatch(/^[0-9a-f]{40}$/);
    }
    const pinned = turns.map(
      (t) =>
        (JSON.parse(readFileSync(join(dir, "certificates", `${t.job_id}.json`), "utf8")) as Certificate)
          .commit_sha_required,
    );
    expect(new Set(pinned)).toEqual(new Set(log.map((e) => e.commit)));
    const report = verifyEvidence(dir);
    const failed = [...report.certificates.flatMap((c) => c.checks), ...report.chain].filter(
      (c) => c.status === "fail",
    );
    expect(failed).toEqual([]);
    expect(report.ok).toBe(true);
  }, 120_000);
});
