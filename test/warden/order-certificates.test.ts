import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verifyEvidence } from "../../src/attest/index.js";
import { hashCanonical } from "../../src/core/index.js";
import { ORDER_INDEX_FILE, runEvidenceDirOf } from "../../src/warden/attest/index.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";
import { askerOf, notesPlan, orderTurn } from "../support/worker-script.js";

// Every order command integrates gets one certificate, signed on the host, pinning the merge commit its
// INTEGRATED event names, in the run's evidence folder: a real warden, real cells, real git merges, the
// scripted model. A second warden on the same home certifies nothing twice, and finishes a certificate whose
// index line a stop cut off.

const home = mkdtempSync(join(tmpdir(), "ironclaw-order-certs-"));
let h: WardenHarness | undefined;
afterAll(async () => {
  await h?.close();
  rmSync(home, { recursive: true, force: true });
});

/** The planner plans `keys` (each after the one before); each order's agent writes its note. */
function scripted(keys: string[]) {
  return (body: Record<string, unknown>) => {
    const asker = askerOf(body);
    if (asker?.kind === "planner")
      return reply.text(
        notesPlan(keys.map((key, i) => (i === 0 ? { key } : { key, depends_on: [keys[i - 1] ?? ""] }))),
      );
    if (asker?.kind === "order") return orderTurn(asker);
    return reply.text("nothing to do");
  };
}

async function start(keys: string[]): Promise<WardenHarness> {
  const harness = await startWardenHarness({
    home,
    configure: (c) => ({ ...c, cells: { ...c.cells, pool_size: 0 } }),
  });
  harness.model.respondWith(scripted(keys));
  return harness;
}

type Data<T> = { data: T; error: unknown };
type Listed = {
  certificates: Array<{
    job_id: string;
    order_id: string;
    commit_sha: string;
    certificate: { commit_sha_required: string; request_hash: string; mode: string };
  }>;
  verify: { ok: boolean } | null;
};

/** One sync run to its reply; returns its id. */
async function runOnce(call: ReturnType<typeof api>, message: string): Promise<string> {
  const asked = (await (
    await call("POST", "/api/command/chat", { theater_hint: "demo", message })
  ).json()) as Data<{
    run_id: string;
    reply?: string;
  }>;
  expect(asked.error).toBeNull();
  expect(asked.data.reply).toBeDefined();
  return asked.data.run_id;
}

/** The run's certificates once `count` are there, however long the host takes to sign them. */
async function certified(call: ReturnType<typeof api>, runId: string, count: number): Promise<Listed> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listed = (
      (await (await call("GET", `/api/attest/runs/${runId}/certificates`)).json()) as Data<Listed>
    ).data;
    if (listed.certificates.length >= count) return listed;
    if (Date.now() > deadline) throw new Error(`${listed.certificates.length} of ${count} certificates`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function integratedEvents(call: ReturnType<typeof api>, runId: string) {
  const { events } = (
    (await (await call("GET", `/api/ledger/events?run_id=${runId}&limit=1000`)).json()) as Data<{
      events: Array<{ type: string; order_id: string; payload: Record<string, unknown> }>;
    }>
  ).data;
  return events
    .filter((e) => e.type === "INTEGRATED")
    .map((e) => ({ order: e.order_id, commit: String(e.payload.commit_sha) }));
}

describe("order certificates", () => {
  it("certifies each integrated order once, pinning its merge commit, and a second warden adds nothing", async () => {
    h = await start(["a", "b"]);
    const aliceToken = await h.addUser("alice");
    const alice = api(h.url, aliceToken);
    const bob = api(h.url, await h.addUser("bob"));
    const boss = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
    expect((await alice("POST", "/api/theaters", { theater_id: "demo" })).status).toBe(201);
    const runId = await runOnce(alice, "Write two notes");

    const integrated = await integratedEvents(alice, runId);
    expect(integrated).toHaveLength(2);
    const listed = await certified(alice, runId, 2);
    expect(listed.verify?.ok).toBe(true);
    const theaters = (await (await alice("GET", "/api/theaters")).json()) as Data<{
      theaters: Array<{ theater_id: string; repo_path: string }>;
    }>;
    const repo = theaters.data.theaters.find((t) => t.theater_id === "demo")?.repo_path ?? "";
    const git = (...args: string[]) =>
      spawnSync("git", ["-C", repo, ...args], { encoding: "utf8" }).stdout.trim();
    for (const event of integrated) {
      const mine = listed.certificates.filter((c) => c.order_id === event.order);
      expect(mine).toHaveLength(1);
      const [cert] = mine;
      expect(cert?.certificate.mode).toBe("prompt-run");
      expect(cert?.commit_sha).toBe(event.commit);
      expect(cert?.certificate.commit_sha_required).toBe(event.commit);
      // The commit is a real merge in the theater's repository: the commit and the two it joined.
      expect(git("cat-file", "-t", event.commit)).toBe("commit");
      expect(git("rev-list", "--parents", "-n", "1", event.commit).split(" ")).toHaveLength(3);
      // The request hashed is the order as planned.
      const order = (
        (await (await alice("GET", `/api/orders/${event.order}`)).json()) as Data<Record<string, unknown>>
      ).data;
      const plan = order.plan as {
        objective: string;
        profile: { name: string; model: string };
        constraints: { tool_policy: unknown };
      };
      const ids = { order_id: event.order, run_id: runId, theater_id: "demo" };
      expect(cert?.certificate.request_hash).toBe(
        hashCanonical({
          messages: [{ role: "user", content: plan.objective }],
          profile: plan.profile.name,
          model: plan.profile.model,
          tool_policy: plan.constraints.tool_policy,
          order: { ...ids, ...plan },
        }),
      );
    }

    // The run's folder passes every check of `ironclaw verify`; one flipped byte of a certificate fails it.
    const dir = runEvidenceDirOf(home, runId);
    const report = verifyEvidence(dir);
    expect(report.ok).toBe(true);
    expect(report.certificates).toHaveLength(2);
    const copy = mkdtempSync(join(tmpdir(), "ironclaw-order-certs-copy-"));
    cpSync(dir, copy, { recursive: true });
    const file = join(copy, "certificates", `${listed.certificates[0]?.job_id}.json`);
    const bytes = readFileSync(file);
    const at = bytes.indexOf("loom-agent-run-v1");
    bytes.writeUInt8(bytes.readUInt8(at) ^ 0x01, at);
    writeFileSync(file, bytes);
    const tampered = verifyEvidence(copy);
    rmSync(copy, { recursive: true, force: true });
    expect(tampered.ok).toBe(false);
    const failed = tampered.certificates.flatMap((c) => c.checks).filter((c) => c.status === "fail");
    expect(failed.map((c) => c.check)).toEqual(expect.arrayContaining(["proof", "artifact_hash"]));

    // The run's owner and an admin read them; another user is told the run is unknown.
    expect((await boss("GET", `/api/attest/runs/${runId}/certificates`)).status).toBe(200);
    expect((await bob("GET", `/api/attest/runs/${runId}/certificates`)).status).toBe(404);

    // A stop that cut off the last index line: the next warden lists that certificate, signing nothing anew.
    const index = join(dir, ORDER_INDEX_FILE);
    const lines = readFileSync(index, "utf8").trimEnd().split("\n");
    writeFileSync(index, `${lines[0]}\n`);
    const signed = Object.fromEntries(
      readdirSync(join(dir, "certificates")).map((n) => [n, readFileSync(join(dir, "certificates", n))]),
    );
    await h.close();
    h = await start(["c"]);
    const again = api(h.url, aliceToken);
    // A second run after it: the ledger is followed in order, so once its certificate is there the catch-up is done.
    const next = await runOnce(again, "Write one more note");
    await certified(again, next, 1);
    const after = readFileSync(index, "utf8").trimEnd().split("\n");
    expect(after.map((l) => JSON.parse(l).job_id).sort()).toEqual(
      lines.map((l) => JSON.parse(l).job_id).sort(),
    );
    expect(readdirSync(join(dir, "certificates")).sort()).toEqual(Object.keys(signed).sort());
    for (const [name, was] of Object.entries(signed))
      expect(readFileSync(join(dir, "certificates", name))).toEqual(was);
    expect(verifyEvidence(dir).ok).toBe(true);
  }, 120_000);
});
