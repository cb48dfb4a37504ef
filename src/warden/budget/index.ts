export {
  alertViews,
  type BudgetAdminDeps,
  budgetOverview,
  clearBudget,
  partyOf,
  setBudget,
  usageReport,
} from "./budget-admin.js";
export { relayBudgetAlerts } from "./budget-alerts.js";
export { ModelBudget, type ModelCallStart, type Overrun } from "./budget-guard.js";
export { findBudgetRefusal } from "./budget-messages.js";
export { describeParty, partyKey } from "./budget-party.js";
export { migrateBudgetTables } from "./budget-store.js";
export { DEFAULT_PRICES_AS_OF } from "./model-price-table.js";
export { formatUsd, microsToUsd, usdToMicros } from "./price-book.js";
export { type CallState, migrateUsageTables } from "./usage-store.js";
