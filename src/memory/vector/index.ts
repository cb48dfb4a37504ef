export { seededRandom } from "./kmeans.js";
export { vectorFromBlob } from "./vector-blob.js";
export {
  DEFAULT_VECTOR_TUNING,
  type VectorHit,
  VectorIndex,
  type VectorIndexTuning,
} from "./vector-index.js";
export { VectorTable } from "./vector-table.js";
