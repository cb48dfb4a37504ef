export { checkHost, type HostPolicy, matchesHost } from "./host-policy.js";
export { addressRefusal, interfaceOf, isPrivateAddress } from "./ip-ranges.js";
export { checkFetchTarget, type FetchedPage, type FetchLimits, fetchPage } from "./page-fetch.js";
