import type { Contract } from "../registry.js";
import { aarContract } from "./aar-file.js";
import { chatContracts } from "./chat-bodies.js";
import { envelopeContract } from "./envelope.js";
import { jobMessageContract } from "./job-message.js";
import { learningContracts } from "./learning-bodies.js";
import { ledgerBodyContracts } from "./ledger-bodies.js";
import { ledgerEventContract, ledgerEventInputContract } from "./ledger-event.js";
import { orderContract } from "./order-file.js";
import { oversightContracts } from "./oversight-bodies.js";
import { runContracts } from "./run-bodies.js";
import { snapshotContracts } from "./snapshot-bodies.js";
import { vaultContracts } from "./vault-bodies.js";
import { workerContracts } from "./worker-bodies.js";

export * from "./aar-file.js";
export * from "./chat-bodies.js";
export * from "./enums.js";
export * from "./envelope.js";
export * from "./event-payloads.js";
export * from "./event-scope.js";
export * from "./event-types.js";
export * from "./job-message.js";
export * from "./learning-bodies.js";
export * from "./ledger-bodies.js";
export * from "./ledger-event.js";
export * from "./order-file.js";
export * from "./oversight-bodies.js";
export * from "./plan-graph.js";
export * from "./routing-policy.js";
export * from "./run-bodies.js";
export * from "./snapshot-bodies.js";
export * from "./vault-bodies.js";
export * from "./worker-bodies.js";

/** Seed 000 (service_contracts.md): ledger events, order/AAR files, job message, service bodies. */
export const commandContracts: Contract[] = [
  ledgerEventContract,
  ledgerEventInputContract,
  ...ledgerBodyContracts,
  orderContract,
  aarContract,
  jobMessageContract,
  envelopeContract,
  ...chatContracts,
  ...runContracts,
  ...snapshotContracts,
  ...vaultContracts,
  ...workerContracts,
  ...oversightContracts,
  ...learningContracts,
];
