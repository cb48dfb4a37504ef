import { z } from "zod";
import { oneOf } from "../common.js";

/** Seed 000 §0 status enums, spelled exactly as the seed spells them. */
export const RUN_STATUSES = ["OPEN", "COMPLETE", "FAILED", "CANCELLED"] as const;
export const ORDER_STATUSES = [
  "QUEUED",
  "CLAIMED",
  "RUNNING",
  "BLOCKED",
  "COMPLETED",
  "FAILED",
  "CANCELLED",
] as const;
export const SEVERITIES = ["LOW", "MEDIUM", "HIGH", "CRITICAL"] as const;

export const runStatusSchema = z.enum(RUN_STATUSES, { error: oneOf(RUN_STATUSES) });
export const orderStatusSchema = z.enum(ORDER_STATUSES, { error: oneOf(ORDER_STATUSES) });
export const severitySchema = z.enum(SEVERITIES, { error: oneOf(SEVERITIES) });

export type RunStatus = z.output<typeof runStatusSchema>;
export type OrderStatus = z.output<typeof orderStatusSchema>;
export type Severity = z.output<typeof severitySchema>;
