import type { EventStore, RunSnapshot } from "../ledger/index.js";

/**
 * Whose a run is: the user_id its RUN_CREATED payload carries (POST /runs and /chat name the user, seed 000 §3.1,
 * §3.2). The ledger's run snapshot has no owner, so the first event of the run is the record. A run created
 * without one (written straight to the ledger) belongs to nobody, and only admins see it.
 */
export async function runOwner(store: EventStore, runId: string): Promise<string | undefined> {
  const [created] = await store.read({ runId, types: ["RUN_CREATED"], limit: 1 });
  const owner = created?.payload.user_id;
  return typeof owner === "string" ? owner : undefined;
}

/** The owner of the run an order belongs to; undefined for an unknown order. */
export async function orderOwner(store: EventStore, orderId: string): Promise<string | undefined> {
  const order = await store.getOrder(orderId);
  return order ? runOwner(store, order.run_id) : undefined;
}

/** How many RUN_CREATED events one read takes while listing runs. */
const PAGE = 500;

/**
 * Runs newest first, each with its owner: every run, or only `userId`'s. Reads every RUN_CREATED event, which
 * is fine for one host's runs; a ledger with millions of runs wants an owner column in the run projection.
 */
export async function listRuns(
  store: EventStore,
  options: { userId?: string; limit?: number } = {},
): Promise<Array<RunSnapshot & { user_id: string | null }>> {
  const owners: Array<{ runId: string; owner: string | null }> = [];
  const head = await store.head();
  for (let after = 0; after < head; ) {
    const page = await store.read({ after, through: head, types: ["RUN_CREATED"], limit: PAGE });
    for (const event of page) {
      const owner = typeof event.payload.user_id === "string" ? event.payload.user_id : null;
      if (event.run_id && (options.userId === undefined || owner === options.userId))
        owners.push({ runId: event.run_id, owner });
    }
    if (page.length < PAGE) break;
    after = page.at(-1)?.position ?? head;
  }
  const newest = owners.reverse().slice(0, options.limit ?? 100);
  const runs = await Promise.all(
    newest.map(async ({ runId, owner }) => {
      const run = await store.getRun(runId);
      return run ? { ...run, user_id: owner } : undefined;
    }),
  );
  return runs.filter((r) => r !== undefined);
}
