export * from "./api.js";
export * from "./attest-api.js";
export * from "./budget-api.js";
export * from "./escalation-api.js";
export * from "./feedback-api.js";
export * from "./secrets-api.js";
export * from "./skills-api.js";
export * from "./ui-api.js";
