import type { Contract } from "../registry.js";

/** Seed 000 (service_contracts.md): ledger events, order/AAR files, job message, service bodies. */
export const commandContracts: Contract[] = [];
