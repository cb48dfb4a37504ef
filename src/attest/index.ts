/** Provenance (seed 002): branch nodes, brain history, certificates, state bundles, verification. */
export * from "./bundle/index.js";
export * from "./history/index.js";
