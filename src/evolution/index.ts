export * from "./openclaw/index.js";
export * from "./pipeline/index.js";
export * from "./store/index.js";
