import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedUnits, type WardenUnits } from "../../test/support/warden-units.js";
import { createBrainHistorySink, digestOf, verifyEvidence } from "../attest/index.js";
import type { BranchNode, Certificate } from "../contracts/index.js";
import { createLogger, hashCanonical } from "../core/index.js";
import { evidenceDirOf, listCertifiedTurns, TurnCertifier } from "./attest/index.js";
import { ChatCore } from "./chat-core.js";

// Each chat turn becomes a signed certificate in the user's evidence folder, pinning the brain state its turn
// left, as the daemon wires it: fake cells with a scripted agent writing its brain on the host, the real history
// sink, real git, the real host key.

let units: WardenUnits | undefined;
afterEach(async () => {
  await units?.close();
  units = undefined;
});

const WORKFLOW_REF = `ironclaw/ironclaw/.github/workflows/ironclaw-0.1.0.yml@${"a".repeat(40)}`;

describe("certified chat turns", () => {
  it("three turns that write memory → three certificates chained by their nodes, verified offline", async () => {
    const started = await startScriptedUnits(() => ({
      async *onUserMessage(message) {
        writeFileSync(join(brainOf("ada"), "memory.md"), `# Memory\n- ${message.text}\n`);
        yield { kind: "final", text: `noted: ${message.text}`, usage: { input_tokens: 1, output_tokens: 1 } };
      },
    }));
    const u = started.units;
    units = u;
    const brainOf = (userId: string) => join(u.home, "users", userId, "brain");
    const logger = createLogger("test", { level: "silent" });
    const brainChanges = createBrainHistorySink({ home: u.home, brainDirOf: brainOf });
    const certifier = new TurnCertifier({ home: u.home, logger, workflowRef: WORKFLOW_REF });
    const chat = new ChatCore({
      cells: u.cells,
      conversations: u.conversations,
      soul: u.soul,
      logger,
      brainChanges,
      certifier,
    });
    let sessionId: string | undefined;
    for (const text of ["likes tea", "likes coffee", "likes rain"]) {
      for await (const event of chat.turn({
        channel: "api",
        userId: "ada",
        text,
        ...(sessionId ? { sessionId } : {}),
      }))
        if (event.type === "session") sessionId = event.sessionId;
      await brainChanges.settle();
      await certifier.settle();
    }

    const dir = evidenceDirOf(u.home, "ada");
    const listed = await listCertifiedTurns(dir);
    expect(listed).toHaveLength(3);
    expect(listed.every((t) => t.session_id === sessionId)).toBe(true);
    // Newest first: the listing's last is the first turn.
    const jobs = listed.map((t) => t.job_id).reverse();
    const certificates = jobs.map(
      (job) => JSON.parse(readFileSync(join(dir, "certificates", `${job}.json`), "utf8")) as Certificate,
    );
    const nodes = readdirSync(join(dir, "nodes")).map(
      (name) => JSON.parse(readFileSync(join(dir, "nodes", name), "utf8")) as BranchNode,
    );
    const nodeOf = (job: string) =>
      nodes.find((n) => n.attestation.proof_ref === `artifact://proofs/${job}.json`);
    const chain = jobs.map((job) => nodeOf(job) as BranchNode);
    expect(chain.every((n) => n !== undefined)).toBe(true);
    // Each turn starts from the state the one before it left.
    expect(chain[1]?.parent_node_id).toBe(chain[0]?.node_id);
    expect(chain[2]?.parent_node_id).toBe(chain[1]?.node_id);
    certificates.forEach((certificate, i) => {
      expect(certificate.mode).toBe("prompt-run");
      expect(certificate.commit_sha_required).toBe(chain[i]?.attestation.commit_sha_required);
      expect(certificate.commit_sha_required).toMatch(/^[0-9a-f]{40}$/);
      const reply = readFileSync(join(dir, "responses", `${jobs[i]}.txt`));
      expect(reply.toString()).toBe(`noted: ${["likes tea", "likes coffee", "likes rain"][i]}`);
      expect(certificate.result.response_sha256).toBe(digestOf(reply));
      expect(certificate.runtime.workflow_ref).toBe(WORKFLOW_REF);
    });
    expect(certificates[0]?.request_hash).toBe(
      hashCanonical({
        messages: [{ role: "user", content: "likes tea" }],
        profile: null,
        model: "none",
        tool_policy: "brain-configured",
        channel: "api",
      }),
    );

    const report = verifyEvidence(dir);
    expect(report.ok).toBe(true);
    expect(report.certificates).toHaveLength(3);

    // One flipped byte in a certificate: its hash no longer matches its node, nor its signed digest.
    const file = join(dir, "certificates", `${jobs[1]}.json`);
    const bytes = readFileSync(file);
    const at = bytes.indexOf("prompt-run");
    bytes[at] = "P".charCodeAt(0);
    writeFileSync(file, bytes);
    const broken = verifyEvidence(dir);
    expect(broken.ok).toBe(false);
    const failed = broken.certificates
      .find((c) => c.job_id === jobs[1])
      ?.checks.filter((c) => c.status === "fail")
      .map((c) => c.check);
    expect(failed).toEqual(expect.arrayContaining(["proof", "artifact_hash"]));
  });

  it("a turn that changes nothing attests the state it found; a certificate that cannot be written spares the turn", async () => {
    const started = await startScriptedUnits(() => ({
      async *onUserMessage(message) {
        if (message.text !== "just chat") writeFileSync(join(brainOf("ada"), "memory.md"), "- likes tea\n");
        yield { kind: "final", text: "ok", usage: { input_tokens: 1, output_tokens: 1 } };
      },
    }));
    const u = started.units;
    units = u;
    const brainOf = (userId: string) => join(u.home, "users", userId, "brain");
    const logger = createLogger("test", { level: "silent" });
    const brainChanges = createBrainHistorySink({ home: u.home, brainDirOf: brainOf });
    const certifier = new TurnCertifier({ home: u.home, logger, workflowRef: WORKFLOW_REF });
    const chat = new ChatCore({
      cells: u.cells,
      conversations: u.conversations,
      soul: u.soul,
      logger,
      brainChanges,
      certifier,
    });
    const turn = async (text: string) => {
      let done: { text: string } | undefined;
      for await (const event of chat.turn({ channel: "api", userId: "ada", text }))
        if (event.type === "done") done = event;
      await brainChanges.settle();
      await certifier.settle();
      return done;
    };
    await turn("likes tea");
    await turn("just chat");
    const dir = evidenceDirOf(u.home, "ada");
    const nodes = readdirSync(join(dir, "nodes"));
    // One state, attested twice: the second certificate's node is a later version of the same node.
    expect(nodes).toHaveLength(2);
    const [first, second] = [...nodes].sort((a, b) => a.length - b.length);
    expect(second?.startsWith(first?.replace(/\.json$/, ".") ?? "-")).toBe(true);
    expect(verifyEvidence(dir).ok).toBe(true);

    // Another host's key in the folder: this host's certificate is refused, the turn still answers.
    writeFileSync(
      join(dir, "public-key.pem"),
      "-----BEGIN PUBLIC KEY-----\nnot ours\n-----END PUBLIC KEY-----\n",
    );
    expect(await turn("just chat")).toMatchObject({ text: "ok" });
    expect(await listCertifiedTurns(dir)).toHaveLength(2);
  });
});
