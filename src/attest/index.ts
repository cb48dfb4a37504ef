/** Provenance (seed 002): branch nodes, brain history, certificates, state bundles, verification. */
export * from "./bundle/index.js";
export * from "./history/index.js";
export {
  HOST_KEY_DIR,
  HOST_KEY_FILE,
  type HostKey,
  HostKeyError,
  loadOrCreateHostKey,
} from "./sign/host-key.js";
export {
  type CertifiedRequest,
  type IssuedCertificate,
  type IssueInput,
  ironclawWorkflowRef,
  issueCertificate,
  proofLocator,
} from "./sign/issue.js";
export {
  digestOf,
  nodeContentSha256,
  PROOF_TYPE,
  type Proof,
  type PublicInputs,
  proofSchema,
  publicInputsOf,
  signedMessage,
} from "./sign/proof.js";
export { keyIdOf, parsePublicKeyPem } from "./sign/public-key.js";
export { PUBLIC_KEY_FILE } from "./verify/evidence.js";
export {
  type CertificateReport,
  CHECK_NAMES,
  type CheckName,
  type CheckResult,
  type CheckStatus,
  type VerifyReport,
} from "./verify/report.js";
export { type VerifyOptions, verifyEvidence } from "./verify/verify-evidence.js";
