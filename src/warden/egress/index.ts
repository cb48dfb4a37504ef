export { type CellEgressOptions, type EgressConnectionHandler, serveCellEgress } from "./cell-egress.js";
export { CellProxies, type CellProxiesOptions, type ProxyTestDial } from "./cell-proxies.js";
