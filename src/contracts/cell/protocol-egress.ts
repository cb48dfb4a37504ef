import { z } from "zod";
import { aNumber, aString } from "../common.js";
import { envVarName } from "./names.js";
import { protocolHeader } from "./protocol-header.js";

// The cell's HTTPS proxy (issue #38): a cell has no network of its own, so a TCP connection its tools open to
// HTTPS_PROXY (a listener of the inmate on the cell's loopback) travels to the warden as a stream of these
// frames, and the warden's egress proxy speaks to it. The inmate only carries bytes; the warden parses them.

/** Decoded bytes one EgressData frame may carry: 48 KiB, 64 KiB as base64, far below a frame's limit. */
export const EGRESS_CHUNK_BYTES = 48 * 1024;
/** Bytes a side may send on one stream before the other acknowledges them (EgressAck). */
export const EGRESS_WINDOW_BYTES = 256 * 1024;

/** A stream's number, chosen by the inmate when it opens it, counting up from 1. */
export const egressStreamId = aNumber()
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(2 ** 31 - 1, "must be at most 2147483647");

/** Inmate → warden: a program in the cell connected to the proxy listener; the warden now speaks to it. */
export const egressOpenSchema = z.strictObject({
  type: z.literal("EgressOpen"),
  ...protocolHeader,
  stream: egressStreamId,
});
export type EgressOpen = z.output<typeof egressOpenSchema>;

/** Either direction: the next bytes of a stream, in order. */
export const egressDataSchema = z.strictObject({
  type: z.literal("EgressData"),
  ...protocolHeader,
  stream: egressStreamId,
  data: z
    .base64("must be base64")
    .min(1, "must not be empty")
    .max((EGRESS_CHUNK_BYTES / 3) * 4, `must decode to at most ${EGRESS_CHUNK_BYTES} bytes`),
});
export type EgressData = z.output<typeof egressDataSchema>;

/** Either direction: the sender will send no more bytes on this stream (TCP's half-close); it still reads. */
export const egressEndSchema = z.strictObject({
  type: z.literal("EgressEnd"),
  ...protocolHeader,
  stream: egressStreamId,
});
export type EgressEnd = z.output<typeof egressEndSchema>;

/** Either direction: the stream is gone (reset, refused, a cap reached); no more frames for it either way. */
export const egressCloseSchema = z.strictObject({
  type: z.literal("EgressClose"),
  ...protocolHeader,
  stream: egressStreamId,
  reason: aString().max(500, "must be at most 500 characters").optional(),
});
export type EgressClose = z.output<typeof egressCloseSchema>;

/**
 * Either direction: the receiver's reader took `bytes` more of the stream, so the sender may send that many
 * more. Neither side may have more than EGRESS_WINDOW_BYTES unacknowledged: a fast upstream cannot flood the
 * channel or a slow reader's memory.
 */
export const egressAckSchema = z.strictObject({
  type: z.literal("EgressAck"),
  ...protocolHeader,
  stream: egressStreamId,
  bytes: aNumber()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(EGRESS_WINDOW_BYTES, `must be at most ${EGRESS_WINDOW_BYTES}`),
});
export type EgressAck = z.output<typeof egressAckSchema>;

/**
 * Part of the warden's Hello: the cell's egress proxy is on. `ca_pem` is the certificate of the cell's own CA
 * (the warden intercepts TLS to bound hosts with leaves it signs), absent when no host is bound for the cell and
 * nothing is intercepted; `env` the placeholders tools see in place of secrets (never a secret itself).
 */
export const helloEgressSchema = z.strictObject({
  ca_pem: aString()
    .min(1, "must not be empty")
    .max(16 * 1024, "must be at most 16384 characters")
    .regex(/^-----BEGIN CERTIFICATE-----/, "must be a PEM certificate")
    .optional(),
  env: z
    .record(envVarName, aString().max(4096, "must be at most 4096 characters"))
    .refine((env) => Object.keys(env).length <= 256, "must hold at most 256 variables"),
});
export type HelloEgress = z.output<typeof helloEgressSchema>;
