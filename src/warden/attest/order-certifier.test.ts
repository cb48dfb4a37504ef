import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IntegrationTheater, passingGate } from "../../../test/support/integration-theater.js";
import { ironclawWorkflowRef, verifyEvidence } from "../../attest/index.js";
import { Integrator } from "../../command/index.js";
import { createLogger } from "../../core/index.js";
import { type CertifiedOrderEntry, listCertifiedOrders, runEvidenceDirOf } from "./evidence-store.js";
import { OrderCertifier } from "./order-certifier.js";

// The certifier on its own, over a real ledger and a real theater repository whose orders are merged by the
// real integrator (its gate passes whatever it is given: gates are not what is tested here).
let theater: IntegrationTheater;
let warnings: string[];

beforeEach(async () => {
  theater = await IntegrationTheater.create();
  warnings = [];
});
afterEach(async () => {
  await theater.close();
});

function certifier(repo: string): OrderCertifier {
  const logger = createLogger(
    "order-certifier-test",
    { level: "warn" },
    { write: (line) => warnings.push(line) },
  );
  const workflowRef = ironclawWorkflowRef({ name: "ironclaw", version: "0.0.0" }, "0".repeat(40));
  return new OrderCertifier({
    home: theater.home,
    store: theater.store,
    repoOf: async () => repo,
    logger,
    workflowRef,
  });
}

async function integrate(orderId: string): Promise<string> {
  const worktreePath = await theater.completedOrder(orderId, {
    files: { [`notes/${orderId}.txt`]: `${orderId}\n` },
  });
  const integrator = new Integrator({
    store: theater.store,
    theaters: theater.theaters,
    gates: { run: async (request) => passingGate(request) },
    dependenciesIntegrated: () => true,
  });
  const result = await integrator.integrate({ theaterId: "demo", orderId, worktreePath });
  expect(result.result).toBe("passed");
  return result.commit_sha as string;
}

/** The run's index once `count` orders are in it (or once `done` says so), however long that takes. */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("not seen in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const dir = () => runEvidenceDirOf(theater.home, theater.runId);
const listed = (count: number) => async (): Promise<CertifiedOrderEntry[] | undefined> => {
  const entries = await listCertifiedOrders(dir());
  return entries.length >= count ? entries : undefined;
};

describe("OrderCertifier", () => {
  it("logs an order it cannot certify, certifies it at the next start, and each order once across restarts", async () => {
    const nowhere = join(theater.home, "not-a-repository");
    await mkdir(nowhere);
    const failing = certifier(nowhere);
    failing.start();
    const first = await integrate("o1");
    await until(async () => (warnings.some((w) => w.includes("could not be certified")) ? true : undefined));
    await failing.close();
    expect(await listCertifiedOrders(dir())).toEqual([]);

    const good = certifier(theater.repo);
    good.start();
    const [entry] = await until(listed(1));
    await good.close();
    expect(entry).toMatchObject({ order_id: "o1", run_id: theater.runId, commit_sha: first });
    expect(verifyEvidence(dir()).ok).toBe(true);

    // Integrated while no certifier ran: the next one catches up, and o1 is not certified again.
    const second = await integrate("o2");
    const again = certifier(theater.repo);
    again.start();
    const entries = await until(listed(2));
    await again.close();
    expect(entries.map((e) => [e.order_id, e.commit_sha])).toEqual([
      ["o2", second],
      ["o1", first],
    ]);
    expect(await readdir(join(dir(), "certificates"))).toHaveLength(2);
    const report = verifyEvidence(dir());
    expect(report.ok).toBe(true);
    // The run's nodes form one chain: o2's node follows o1's.
    expect(report.chain.map((c) => c.status)).toEqual(["pass"]);
    expect(report.chain[0]?.reason).toMatch(/^2 nodes/);
  });
});
