import { z } from "zod";
import { aNumber, aString, isoUtc } from "../common.js";
import { brainPath } from "./brain-path.js";
import { messageId, protocolHeader } from "./protocol-header.js";

export const FILE_OPS = ["list", "read", "write", "delete"] as const;
export type FileOp = (typeof FILE_OPS)[number];

const fileOp = z.enum(FILE_OPS, `must be one of ${FILE_OPS.join(", ")}`);

export const FILE_ENCODINGS = ["utf8", "base64"] as const;
export type FileEncoding = (typeof FILE_ENCODINGS)[number];

/**
 * How `content` carries the file's bytes: UTF-8 text (the default, what the memory inspector edits) or base64,
 * for the bytes of an order's worktree (`work/`), which may be anything a repository holds.
 */
const fileEncoding = z.enum(FILE_ENCODINGS, `must be one of ${FILE_ENCODINGS.join(", ")}`).optional();

/**
 * Warden → inmate: the memory inspector's only way into the brain (the warden never mounts or opens it).
 * Text (UTF-8) by default: the brain holds markdown and TOML; base64 for the files of an order's tree in `work/`.
 */
export const fileOpRequestSchema = z
  .strictObject({
    type: z.literal("FileOpRequest"),
    ...protocolHeader,
    op: fileOp,
    path: brainPath,
    content: aString().optional(),
    encoding: fileEncoding,
  })
  .superRefine((msg, ctx) => {
    if (msg.op === "write" && msg.content === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["content"],
        message: "is required when op is write",
        input: msg,
      });
    }
    if (msg.op !== "write" && msg.content !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["content"],
        message: "is only allowed when op is write",
        input: msg.content,
      });
    }
  });
export type FileOpRequest = z.output<typeof fileOpRequestSchema>;

/**
 * `link` and `other` (a socket, a device) are listed only inside `work/`, an order's tree, so that the host can
 * report what it skips there; elsewhere such entries are left out.
 */
export const BRAIN_ENTRY_KINDS = ["file", "dir", "link", "other"] as const;

export const brainEntrySchema = z.strictObject({
  path: brainPath,
  kind: z.enum(BRAIN_ENTRY_KINDS, `must be one of ${BRAIN_ENTRY_KINDS.join(", ")}`),
  size_bytes: aNumber().int("must be an integer").min(0, "must be a non-negative integer").optional(),
  modified_at: isoUtc.optional(),
});
export type BrainEntry = z.output<typeof brainEntrySchema>;

export const FILE_OP_ERROR_CODES = ["not_found", "forbidden", "too_large", "io_error"] as const;

/**
 * Inmate → warden: the answer to one FileOpRequest (named by `reply_to`). A refused or failed operation is
 * answered here with `error`, so a client waits for one reply type per request; on success `list` carries
 * `entries`, `read` carries `content`, and `write`/`delete` carry neither.
 */
export const fileOpResultSchema = z
  .strictObject({
    type: z.literal("FileOpResult"),
    ...protocolHeader,
    reply_to: messageId,
    op: fileOp,
    path: brainPath,
    entries: z.array(brainEntrySchema).optional(),
    content: aString().optional(),
    encoding: fileEncoding,
    error: z
      .strictObject({
        code: z.enum(FILE_OP_ERROR_CODES, `must be one of ${FILE_OP_ERROR_CODES.join(", ")}`),
        message: aString().min(1, "must not be empty"),
      })
      .optional(),
  })
  .superRefine((msg, ctx) => {
    const wants = msg.error
      ? undefined
      : msg.op === "list"
        ? "entries"
        : msg.op === "read"
          ? "content"
          : undefined;
    for (const field of ["entries", "content"] as const) {
      if (field === wants && msg[field] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `is required for a successful ${msg.op}`,
          input: msg,
        });
      } else if (field !== wants && msg[field] !== undefined) {
        const when = msg.error ? "when the operation failed" : `for ${msg.op}`;
        ctx.addIssue({ code: "custom", path: [field], message: `is not allowed ${when}`, input: msg[field] });
      }
    }
  });
export type FileOpResult = z.output<typeof fileOpResultSchema>;
