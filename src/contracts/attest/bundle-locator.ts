import { z } from "zod";
import { fieldRule, sha256Digest, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { locatorField, ratchetStepField, recordOf } from "./formats.js";

/**
 * `bundle_locator_next.json` (seed 002 §3): "locator + hash metadata for outgoing encrypted bundle". The locator
 * and the hash are required, under the names result.json's bullets give the same bundle (`bundle_ref`,
 * `bundle_sha256`), so the two files compare directly; the rest is IronClaw's metadata, typed when present.
 */
export const bundleLocatorSchema = z.looseObject(
  {
    schema_version: z.string(fieldRule("must be a string")).min(1, "must not be empty").optional(),
    state_id: uuid.optional(),
    bundle_ref: locatorField,
    file_name: z
      .string(fieldRule("must be a string"))
      .regex(/^[^\s/]+$/, "must be a file name without slashes (e.g. state_bundle.tar.enc)")
      .optional(),
    /** Digest of exactly the uploaded encrypted bytes (seed 002 §4: "Hash exactly uploaded bytes"). */
    bundle_sha256: sha256Digest,
    size_bytes: z
      .int(fieldRule("must be an integer"))
      .positive("must be a positive number of bytes")
      .optional(),
    /** Digest of the bundle's manifest, as the certificate's `result.new_state.bundle_manifest_sha256`. */
    manifest_sha256: sha256Digest.optional(),
    ratchet_step: ratchetStepField.optional(),
  },
  recordOf("bundle_locator_next.json"),
);

export type BundleLocator = z.output<typeof bundleLocatorSchema>;

export const bundleLocatorContract = defineContract({
  kind: "bundle-locator-next",
  seed: "002",
  title: "Backend bundle_locator_next.json",
  description:
    "Locator and sha256 of the outgoing encrypted state bundle, with optional file name, size, manifest " +
    "digest and ratchet step.",
  format: "json",
  schema: bundleLocatorSchema,
});
