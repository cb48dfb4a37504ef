import { IronclawError } from "../../core/index.js";
import type { OrderSnapshot } from "../../ledger/index.js";

/** An order integration will not touch, and why; nothing was merged or recorded. */
export class IntegrationRefusedError extends IronclawError {
  override readonly name = "IntegrationRefusedError";
  constructor(
    readonly orderId: string,
    reason: string,
  ) {
    super("integration_refused", `order ${orderId} is not integrated: ${reason}`);
  }
}

/** Only a COMPLETED order whose integration has not failed or finished may be integrated. */
export function refuseUnlessIntegrable(order: OrderSnapshot): void {
  const id = order.order_id;
  if (order.integration_state === "INTEGRATED")
    throw new IntegrationRefusedError(id, `it is already INTEGRATED as ${order.commit_sha}`);
  if (order.status !== "COMPLETED")
    throw new IntegrationRefusedError(id, `it is ${order.status}; only a COMPLETED order is integrated`);
  if (order.integration_state === "FAILED")
    throw new IntegrationRefusedError(
      id,
      "its integration FAILED; it is tried again only once declared INTEGRATION_READY",
    );
}
