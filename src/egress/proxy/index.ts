export {
  type CellCa,
  type CellCaOptions,
  createCellCa,
  type LeafCertificate,
  makeCellCa,
} from "./cell-ca.js";
export { handleProxyConnection } from "./proxy-connection.js";
export {
  DEFAULT_PROXY_LIMITS,
  type ProxyAuditEntry,
  type ProxyBinding,
  type ProxyContext,
  type ProxyLimits,
  type SecretUseRequest,
} from "./proxy-context.js";
export { SECRET_TOKEN } from "./request-policy.js";
export { systemResolve } from "./upstream-dial.js";
