import type { AuditStore } from "../audit-store.js";
import type { ChannelRouter } from "../channels/channel.js";
import type { UserStore } from "../user-store.js";
import type { ModelBudget } from "./budget-guard.js";

/**
 * Tells people about budget alerts as they are recorded: the user's linked chats (Telegram…) for their own caps,
 * every admin's for the host-wide cap. The UI reads the same alerts from GET /api/budgets/alerts. Each alert is
 * also a line in the audit trail.
 */
export function relayBudgetAlerts(
  budget: ModelBudget,
  to: { router: Pick<ChannelRouter, "notify">; users: UserStore; audit: AuditStore },
): () => void {
  return budget.onAlert((alert) => {
    to.audit.record({
      ...(alert.userId ? { userId: alert.userId } : {}),
      actor: "warden",
      action: "budget.alert",
      detail: {
        party: alert.party,
        window: alert.periodKey,
        level: alert.level,
        spent_micros: alert.spentMicros,
      },
    });
    const recipients = alert.userId
      ? [alert.userId]
      : to.users
          .list()
          .filter((u) => u.admin)
          .map((u) => u.id);
    for (const userId of recipients) to.router.notify(userId, alert.message);
  });
}
