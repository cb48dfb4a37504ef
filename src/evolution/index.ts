export * from "./pipeline/index.js";
export * from "./store/index.js";
