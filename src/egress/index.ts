export { checkedAddress } from "./checked-address.js";
export { dialAddress, type EgressDial } from "./dial-address.js";
export { EgressRefusal } from "./egress-refusal.js";
export { createGuardedFetch, type GuardedFetchOptions } from "./guarded-fetch.js";
export { addressRefusal, interfaceOf } from "./ip-ranges.js";
export { fetchPage } from "./page-fetch.js";
export {
  type CellCa,
  type CellCaOptions,
  createCellCa,
  DEFAULT_PROXY_LIMITS,
  handleProxyConnection,
  type LeafCertificate,
  makeCellCa,
  type ProxyAuditEntry,
  type ProxyBinding,
  type ProxyContext,
  type ProxyLimits,
  SECRET_TOKEN,
  type SecretUseRequest,
  systemResolve,
} from "./proxy/index.js";
