import { z } from "zod";
import { aBoolean, aString, expected } from "../common.js";
import { userNameSchema } from "./api.js";

// A user's secrets and where the warden's egress proxy may send them (issue #38): the bodies and answers of
// /api/secrets, shared by the routes, the CLI and the UI. No answer ever carries a secret's value.

/**
 * Variables a cell's own setup decides (its proxy, trust bundle, loader, shell): a secret under one of these
 * names would replace them in the cell's environment.
 */
const RESERVED_NAMES = new Set([
  "PATH",
  "HOME",
  "USER",
  "SHELL",
  "PWD",
  "TMPDIR",
  "LANG",
  "TERM",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "NODE_OPTIONS",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "GIT_SSL_CAINFO",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
]);

/** A secret's name is also the environment variable a skill reads it from, hence upper snake case. */
export const secretNameSchema = aString()
  .regex(
    /^[A-Z_][A-Z0-9_]{0,63}$/,
    "must be 1-64 capital letters, digits or _, not starting with a digit (like GITHUB_TOKEN)",
  )
  .refine((v) => !RESERVED_NAMES.has(v) && !v.startsWith("IRONCLAW_"), {
    message:
      "must not be a variable the cell's own setup uses (PATH, HTTPS_PROXY, SSL_CERT_FILE, IRONCLAW_…)",
  });

export const SECRET_VALUE_MAX_BYTES = 8192;

/**
 * The value goes into one HTTP header of a request the warden forwards: a line break there would let a value
 * add headers of its own, so control characters (tab aside) are refused.
 */
export const secretValueSchema = aString()
  .min(1, "must not be empty")
  .refine(
    (v) => Buffer.byteLength(v, "utf8") <= SECRET_VALUE_MAX_BYTES,
    `must be at most ${SECRET_VALUE_MAX_BYTES} bytes (UTF-8)`,
  )
  .refine(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    (v) => !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(v),
    "must not contain line breaks or other control characters: it is sent in an HTTP header",
  );

/**
 * The exact host a secret may be sent to: a DNS name of two labels or more whose last is not a number, so never
 * a wildcard, a port or an IP address (the proxy's certificate and the upstream's both name a host).
 */
export const secretHostSchema = aString()
  .regex(
    /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/,
    "must be an exact DNS name with a dot, no wildcard, port or IP address (like api.github.com)",
  )
  .transform((v) => v.toLowerCase());

/** Headers the proxy itself must control: a secret placed there would change how the request is framed or routed. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
]);

export const secretHeaderSchema = aString()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, "must be an HTTP header name of 1-64 characters")
  .refine((v) => !RESERVED_HEADERS.has(v.toLowerCase()) && !v.toLowerCase().startsWith("proxy-"), {
    message: `must not be one the proxy controls (${[...RESERVED_HEADERS].join(", ")}, proxy-…)`,
  });

export const secretFormatSchema = aString()
  .max(256, "must be at most 256 characters")
  .refine(
    (v) => v.split("{secret}").length === 2,
    "must contain {secret} exactly once (like Bearer {secret})",
  )
  .refine(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    (v) => !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(v),
    "must not contain line breaks or other control characters",
  );

export const SECRET_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export const secretMethodSchema = z.enum(SECRET_METHODS, {
  error: expected(`one of ${SECRET_METHODS.join(", ")}`),
});

/** A path prefix the secret may be sent with (`/repos/`); the query string is never part of it. */
export const secretPathSchema = aString().regex(
  /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]{0,255}$/,
  "must be a path starting with / without spaces, ? or # (like /repos/)",
);

/** PUT /api/secrets/{name}: the value, sent once and never shown again. */
export const secretPutBodySchema = z.strictObject({ value: secretValueSchema });

export const secretNameParamsSchema = z.strictObject({ name: secretNameSchema });

/** Whose secrets: your own, or (an admin) the user named. */
export const secretScopeQuerySchema = z.strictObject({ user: userNameSchema.optional() });

export const DEFAULT_SECRET_HEADER = "Authorization";
export const DEFAULT_SECRET_FORMAT = "Bearer {secret}";

/** A user's binding of one of their secrets to a host; header and format default to a bearer token. */
export const secretBindingBodySchema = z.strictObject({
  host: secretHostSchema,
  header: secretHeaderSchema.default(DEFAULT_SECRET_HEADER),
  format: secretFormatSchema.default(DEFAULT_SECRET_FORMAT),
  methods: z
    .array(secretMethodSchema, { error: expected("a list of methods") })
    .min(1)
    .optional(),
  paths: z
    .array(secretPathSchema, { error: expected("a list of paths") })
    .min(1)
    .optional(),
});
export type SecretBindingBody = z.output<typeof secretBindingBodySchema>;

/** DELETE /api/secrets/{name}/bindings?host=…: which binding to remove. */
export const secretUnbindQuerySchema = z.strictObject({
  user: userNameSchema.optional(),
  host: secretHostSchema,
});

/** A stored secret as anyone may see it: its name and when it was set, never its value. */
export const secretInfoSchema = z.object({
  name: aString(),
  created_at: aString(),
  updated_at: aString(),
});
export type SecretInfoView = z.output<typeof secretInfoSchema>;

/** Where a secret may go: bound by the user (skill null) or declared by an approved skill. */
export const secretBindingSchema = z.object({
  secret: aString(),
  host: aString(),
  port: z.literal(443),
  header: aString(),
  format: aString(),
  methods: z.array(aString()).optional(),
  paths: z.array(aString()).optional(),
  skill: aString().nullable(),
  /** False when the secret is not set: the binding does nothing until it is ("missing secret"). */
  secret_set: aBoolean(),
});
export type SecretBindingView = z.output<typeof secretBindingSchema>;

/** A secret some approved skill asks for (requires.env, primaryEnv or an egress declaration). */
export const secretNeedSchema = z.object({
  secret: aString(),
  skills: z.array(aString()),
  secret_set: aBoolean(),
});

/** GET /api/secrets: the names, the bindings and which skills need which secret. */
export const secretsOverviewSchema = z.object({
  user: aString(),
  secrets: z.array(secretInfoSchema),
  bindings: z.array(secretBindingSchema),
  needs: z.array(secretNeedSchema),
});
export type SecretsOverview = z.output<typeof secretsOverviewSchema>;

export const secretRemovedSchema = z.object({ removed: aBoolean() });
