import type { Contract } from "../registry.js";

/** Seed 002 (data contracts): branch node, certificate, backend output artifacts. */
export const attestContracts: Contract[] = [];
