import type { EventStore, OrderSnapshot } from "../../ledger/index.js";

/** ORDER_CREATED events read per page while catching up. */
const PAGE = 1_000;

/**
 * The orders oversight still has to look at, by theater. It catches up on ORDER_CREATED events from where it
 * stopped, so a patrol reads the ledger's new orders rather than all of it, and forgets an order once nothing
 * can happen to it that a patrol acts on: cancelled, failed, integrated or refused integration, or completed with
 * its worktree gone. A process that restarts builds it again from the ledger.
 */
export class ActiveOrders {
  private readonly theaterOf = new Map<string, string>();
  private through = 0;

  constructor(private readonly store: EventStore) {}

  /** The snapshots of the orders still watched, of one theater or of all. */
  async list(theaterId?: string): Promise<OrderSnapshot[]> {
    await this.catchUp();
    const orders: OrderSnapshot[] = [];
    for (const [orderId, theater] of this.theaterOf) {
      if (theaterId !== undefined && theater !== theaterId) continue;
      const order = await this.store.getOrder(orderId);
      if (!order || isSettled(order)) this.theaterOf.delete(orderId);
      else orders.push(order);
    }
    return orders;
  }

  private async catchUp(): Promise<void> {
    const head = await this.store.head();
    while (this.through < head) {
      const page = await this.store.read({
        after: this.through,
        through: head,
        types: ["ORDER_CREATED"],
        limit: PAGE,
      });
      for (const event of page)
        if (event.order_id !== null && event.theater_id !== null)
          this.theaterOf.set(event.order_id, event.theater_id);
      this.through = page.length < PAGE ? head : (page.at(-1)?.position ?? head);
    }
  }
}

function isSettled(order: OrderSnapshot): boolean {
  if (order.status === "CANCELLED" || order.status === "FAILED") return true;
  if (order.integration_state === "INTEGRATED" || order.integration_state === "FAILED") return true;
  return (
    order.status === "COMPLETED" &&
    (order.worktree_state === "REMOVED" || order.worktree_state === "ARCHIVED")
  );
}
