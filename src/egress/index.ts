export { EgressRefusal } from "./egress-refusal.js";
export { addressRefusal, interfaceOf } from "./ip-ranges.js";
export { fetchPage } from "./page-fetch.js";
