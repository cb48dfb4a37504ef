import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import { defineContract } from "../registry.js";
import { bindAddress } from "./host-names.js";
import { envVarName } from "./names.js";

export const CELL_BACKENDS = ["auto", "microvm", "bwrap", "process"] as const;
export type CellBackendSetting = (typeof CELL_BACKENDS)[number];

export const DEFAULT_PORT = 7420;

/** A file system path on the host; relative paths are read from IRONCLAW_HOME. */
const hostPath = aString()
  .min(1, "must not be empty")
  .refine((p) => !p.includes("\u0000"), "must not contain a NUL character");

// Every table is `.prefault({})`: a missing table is parsed as an empty one, so its fields get their defaults
// and an empty file is a complete config.
const serverSchema = z
  .strictObject({
    port: aNumber()
      .int("must be an integer")
      .min(1, "must be a TCP port from 1 to 65535")
      .max(65535, "must be a TCP port from 1 to 65535")
      .default(DEFAULT_PORT),
    // Loopback by default: exposing the warden is a decision, normally made behind a TLS proxy.
    bind: bindAddress.default("127.0.0.1"),
  })
  .prefault({});

const cellsSchema = z
  .strictObject({
    backend: z.enum(CELL_BACKENDS, `must be one of ${CELL_BACKENDS.join(", ")}`).default("auto"),
    // `auto` skips software-emulated microVMs (slow) and never picks the unisolated process backend unless
    // these allow it; naming a backend in `backend` is already that choice.
    allow_tcg: aBoolean().default(false),
    allow_process: aBoolean().default(false),
    // Cell image parts; when absent the ones built into IRONCLAW_HOME/images/ are used.
    kernel: hostPath.optional(),
    initramfs: hostPath.optional(),
    rootfs: hostPath.optional(),
  })
  .prefault({});

const storageSchema = z
  .strictObject({
    // When absent: the IRONCLAW_HOME environment variable, else ~/.ironclaw.
    home: hostPath.optional(),
    users_dir: hostPath.default("users"),
  })
  .prefault({});

/** A channel credential: the token itself (this file stays on the host) or the variable that holds it. */
export const channelCredentialSchema = z
  .strictObject({
    enabled: aBoolean().default(true),
    token: aString().min(1, "must not be empty").optional(),
    token_env: envVarName.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.token !== undefined && c.token_env !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["token_env"],
        message: "give token or token_env, not both",
        input: c,
      });
    } else if (c.enabled && c.token === undefined && c.token_env === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["token"],
        message: "is required (or token_env) when enabled",
        input: c,
      });
    }
  });
export type ChannelCredential = z.output<typeof channelCredentialSchema>;

// Strict, so that a misspelt or not yet supported channel is reported instead of silently ignored.
const integrationsSchema = z.strictObject({ telegram: channelCredentialSchema.optional() }).prefault({});

const uiSchema = z
  .strictObject({
    enabled: aBoolean().default(true),
    path: aString()
      .regex(/^\/([A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*)?$/, "must be a URL path starting with / (like /ui)")
      .default("/ui"),
  })
  .prefault({});

/** `ironclawd.toml`, the host daemon's config (seed 003 §10.1). */
export const ironclawdConfigSchema = z.strictObject({
  server: serverSchema,
  cells: cellsSchema,
  storage: storageSchema,
  integrations: integrationsSchema,
  ui: uiSchema,
});
export type IronclawdConfig = z.output<typeof ironclawdConfigSchema>;
export type IronclawdConfigInput = z.input<typeof ironclawdConfigSchema>;

export const ironclawdConfigContract = defineContract({
  kind: "ironclawd-config",
  seed: "003",
  title: "Host daemon config (ironclawd.toml)",
  description:
    "The warden's TOML config: [server] port and bind address, [cells] backend and image paths, [storage] " +
    "home and users directory, [integrations] channel tokens (inline or by environment variable) and [ui]. " +
    "Every key has a default, so an empty file is a valid config.",
  format: "toml",
  schema: ironclawdConfigSchema,
});
