import { z } from "zod";
import { envVarName } from "../cell/index.js";
import { aString, expected } from "../common.js";

/**
 * One entry of `metadata.ironclaw.egress` (seed 003 §16.3): the warden's egress proxy puts the secret, written as
 * `format` says, into `header` of requests to exactly `host` on port 443, optionally only for these methods and
 * paths. The cell holds only a placeholder; the secret never enters it.
 */

const LOWERCASE_HOST =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** Headers that frame or route the request: a secret there would change what the proxy forwards, not who asks. */
const FRAMING_HEADERS = new Set([
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

const HEADER_TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

export const SKILL_EGRESS_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export const skillEgressSchema = z.looseObject(
  {
    host: aString().regex(
      LOWERCASE_HOST,
      "must be one exact lowercase host name with a dot, without scheme, port or wildcard (like api.github.com)",
    ),
    secret: envVarName,
    header: aString()
      .regex(HEADER_TOKEN, "must be an HTTP header name (like Authorization)")
      .refine((h) => !FRAMING_HEADERS.has(h.toLowerCase()) && !h.toLowerCase().startsWith("proxy-"), {
        message: "must not be a header that frames or routes the request (Host, Content-Length, Proxy-…)",
      }),
    format: aString()
      .max(256, "must be at most 256 characters")
      .regex(/^[^\r\n\0]*$/, "must be one line")
      .refine((f) => f.split("{secret}").length === 2, {
        message: "must contain {secret} exactly once (like Bearer {secret})",
      }),
    methods: z
      .array(z.enum(SKILL_EGRESS_METHODS, { error: expected(`one of ${SKILL_EGRESS_METHODS.join(", ")}`) }), {
        error: expected("a list"),
      })
      .min(1, "must list at least one method, or be left out for all")
      .optional(),
    paths: z
      .array(
        aString().regex(
          /^\/[^\s?#]*$/,
          "must be a path prefix starting with / without query or fragment (like /repos/)",
        ),
        { error: expected("a list") },
      )
      .min(1, "must list at least one path prefix, or be left out for all")
      .optional(),
  },
  { error: expected("a mapping with host, secret, header and format") },
);

export type SkillEgressDeclaration = z.output<typeof skillEgressSchema>;
