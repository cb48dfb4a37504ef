import type { Contract } from "../registry.js";

/** Seed 003 (SPEC.md): warden ↔ inmate protocol messages and the TOML configs. */
export const cellContracts: Contract[] = [];
