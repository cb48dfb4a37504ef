import type { Contract } from "../registry.js";
import { branchNodeContract } from "./branch-node.js";
import { bundleLocatorContract } from "./bundle-locator.js";
import { certificateContract } from "./certificate.js";
import { nextTokensContract } from "./next-tokens.js";
import { resultJsonContract } from "./result-json.js";

export {
  type BranchNode,
  type BranchNodeInput,
  branchNodeContract,
  branchNodeSchema,
  ROUTE_MODES,
} from "./branch-node.js";
export { type BundleLocator, bundleLocatorContract, bundleLocatorSchema } from "./bundle-locator.js";
export {
  CERTIFICATE_MODES,
  type Certificate,
  type CertificateInput,
  type CertificateMode,
  certificateContract,
  certificateSchema,
  MODE_REQUIREMENTS,
  RUNNER_CLASSES,
} from "./certificate.js";
export { type NextTokens, nextTokensContract, nextTokensSchema } from "./next-tokens.js";
export { diffImmutableFields, IMMUTABLE_NODE_FIELDS, type ImmutableNodeField } from "./node-linkage.js";
export {
  BACKEND_RUN_STATUSES,
  RESTORE_MODES,
  type ResultJson,
  resultJsonContract,
  resultJsonSchema,
} from "./result-json.js";
export { parseWorkflowRef, type WorkflowRef } from "./workflow-ref.js";

/** Seed 002 (data contracts): branch node, certificate, backend output artifacts. */
export const attestContracts: Contract[] = [
  branchNodeContract,
  certificateContract,
  resultJsonContract,
  nextTokensContract,
  bundleLocatorContract,
];
