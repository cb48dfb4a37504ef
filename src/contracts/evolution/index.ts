import type { Contract } from "../registry.js";

/** Seed 004 (Appleseed event contract): runtime event envelopes and the operator-session artifact. */
export const evolutionContracts: Contract[] = [];
