export { type CellEgressOptions, type EgressConnectionHandler, serveCellEgress } from "./cell-egress.js";
