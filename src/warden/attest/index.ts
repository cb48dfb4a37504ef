/**
 * Provenance in the warden: each chat turn and each integrated command order certified and signed on the host,
 * kept as evidence per user and per run.
 */
export { type CellBrainReaderOptions, cellBrainReader } from "./cell-brain-reader.js";
export {
  type CertifiedOrderEntry,
  type CertifiedTurnEntry,
  copyCertifiedTurns,
  EVIDENCE_PARTS,
  evidenceDirOf,
  listCertifiedOrders,
  listCertifiedTurns,
  ORDER_INDEX_FILE,
  runEvidenceDirOf,
  TURN_INDEX_FILE,
} from "./evidence-store.js";
export { OrderCertifier, type OrderCertifierOptions } from "./order-certifier.js";
export { copySessionTurns, findSessionTurns, type SessionTurns } from "./session-evidence.js";
export { type CertifiedTurn, TurnCertifier, type TurnCertifying } from "./turn-certifier.js";
export { TurnModels } from "./turn-models.js";
export { runningWorkflowRef } from "./workflow-ref.js";
