/** Provenance in the warden: each chat turn certified and signed on the host, kept per user as evidence. */
export {
  type CertifiedTurnEntry,
  copyCertifiedTurns,
  EVIDENCE_PARTS,
  evidenceDirOf,
  listCertifiedTurns,
  TURN_INDEX_FILE,
} from "./evidence-store.js";
export { type CertifiedTurn, TurnCertifier, type TurnCertifying } from "./turn-certifier.js";
export { TurnModels } from "./turn-models.js";
export { runningWorkflowRef } from "./workflow-ref.js";
