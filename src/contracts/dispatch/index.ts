import type { Contract } from "../registry.js";

/** Seed 001 (dispatch contract): worker dispatch, `<completion>` block. */
export const dispatchContracts: Contract[] = [];
