export type { IngestedEnvelope, IngestResult } from "../../contracts/index.js";
export { derivedUuid } from "./derived-id.js";
export type { DirectFeedbackInput, DirectRecordInput, RoutedSessionInput } from "./direct-records.js";
export { writeDurably } from "./durable-files.js";
export { EvolutionStore, type IngestOptions, type Recovery } from "./evolution-store.js";
export type { Submitter } from "./ingest-plan.js";
export { buildInspectReport, type InspectEntry, type InspectReport } from "./inspect-report.js";
export { appendLines, type JsonlChunk, readJsonlFrom, truncateFile } from "./jsonl-file.js";
export { defaultStateDir, STATE_FILES } from "./state-files.js";
export {
  projectFeedback,
  projectionRecordId,
  type ReceivedFrom,
  type StoredEnvelope,
} from "./stored-records.js";
