export * from "./store/index.js";
export * from "./pipeline/index.js";
