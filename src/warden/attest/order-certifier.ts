import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { digestOf, type HostKey, issueCertificate, loadOrCreateHostKey } from "../../attest/index.js";
import { hostGit } from "../../command/index.js";
import type { Logger } from "../../core/index.js";
import type { EventStore, RecordedEvent } from "../../ledger/index.js";
import { LedgerFollower } from "../ledger-follower.js";
import {
  appendIndex,
  type CertifiedOrderEntry,
  listCertifiedOrders,
  ORDER_INDEX_FILE,
  runEvidenceDirOf,
  storeCertificate,
} from "./evidence-store.js";
import { orderNode, readIntegratedOrder, uuidOf } from "./order-facts.js";

export interface OrderCertifierOptions {
  home: string;
  /** Command's ledger, followed for INTEGRATED events. */
  store: EventStore;
  /** A theater's repository, where the merge commits are. */
  repoOf(theaterId: string): Promise<string>;
  logger: Logger;
  workflowRef: string;
}

/**
 * Issues a loom-agent-run-v1 certificate ("prompt-run") for each command order that is INTEGRATED, signed with
 * the host key and pinning the merge commit the event names, and keeps it in the run's evidence folder. It
 * follows the ledger on its own, from its start, so integration never waits for a signature and orders
 * integrated while the warden was down are certified when it starts again; an order already in the run's
 * `orders.jsonl` is skipped, so each is certified once. A failure is logged, never thrown; that order is tried
 * again on the next start.
 */
export class OrderCertifier {
  private key: HostKey | undefined;
  private readonly follower: LedgerFollower;

  constructor(private readonly options: OrderCertifierOptions) {
    this.follower = new LedgerFollower({
      store: options.store,
      types: ["INTEGRATED"],
      logger: options.logger,
      handle: (event) => this.certifyOnce(event),
      failed: (event, error) => [
        { run: event.run_id, order: event.order_id, reason: error.message },
        "an integrated order could not be certified",
      ],
      lost: "integrated orders are no longer being certified",
    });
  }

  start(): void {
    this.follower.start();
  }

  /** Stops following; the certificate being written, if any, is finished first. */
  close(): Promise<void> {
    return this.follower.close();
  }

  private async certifyOnce(event: RecordedEvent): Promise<void> {
    const { run_id: runId, order_id: orderId, theater_id: theaterId } = event;
    if (runId === null || orderId === null || theaterId === null) return;
    const commit = String(event.payload.commit_sha);
    const dir = runEvidenceDirOf(this.options.home, runId);
    const listed = await listCertifiedOrders(dir);
    if (listed.some((entry) => entry.order_id === orderId)) return;
    const jobId = uuidOf(`job:${event.event_id}`);
    const entry = (timestamp: string): CertifiedOrderEntry => ({
      job_id: jobId,
      run_id: runId,
      order_id: orderId,
      commit_sha: commit,
      timestamp,
    });
    // Written whole before a stop cut off its index line: listed now, not signed again.
    const written = await readFile(join(dir, "certificates", `${jobId}.json`), "utf8").catch(() => undefined);
    if (written !== undefined) {
      await appendIndex(
        dir,
        ORDER_INDEX_FILE,
        entry((JSON.parse(written) as { timestamp: string }).timestamp),
      );
      return;
    }
    const order = await readIntegratedOrder(this.options.store, {
      ...event,
      order_id: orderId,
      theater_id: theaterId,
    });
    const repo = await this.options.repoOf(order.theaterId);
    // Fails when the repository does not hold the commit: nothing is certified that the theater cannot show.
    const tree = await hostGit(repo, ["ls-tree", "-r", "--full-tree", commit]);
    const previous = listed[0];
    const node = orderNode({
      nodeId: uuidOf(`node:${jobId}`),
      parentNodeId: previous ? uuidOf(`node:${previous.job_id}`) : null,
      theaterId: order.theaterId,
      commit,
      treeListing: tree.stdout,
      order,
      step: listed.length,
    });
    this.key ??= loadOrCreateHostKey(this.options.home);
    const issued = issueCertificate(
      {
        jobId,
        mode: "prompt-run",
        request: order.request,
        response: {
          sha256: digestOf(Buffer.from(order.response)),
          locator: `artifact://responses/${jobId}.txt`,
        },
        runtime: {
          workflowRef: this.options.workflowRef,
          startedAt: order.startedAt,
          finishedAt: order.finishedAt,
        },
        commitShaRequired: commit,
        node,
      },
      this.key,
    );
    await storeCertificate({
      dir,
      index: { file: ORDER_INDEX_FILE, entry: entry(issued.certificate.timestamp) },
      issued,
      response: order.response,
      publicKeyPem: this.key.publicKeyPem,
    });
  }
}
