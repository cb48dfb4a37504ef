import { z } from "zod";
import { fieldRule, sha256HexDigest, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { locatorField, ratchetStepField, recordOf } from "./formats.js";

/**
 * `bundle_locator_next.json` (seed 002 §3): where the outgoing encrypted state bundle was uploaded and the
 * hash metadata to check it by. Field names match `result.json` so the two can be compared directly.
 */
export const bundleLocatorSchema = z.strictObject(
  {
    schema_version: z.literal(
      "ironclaw-bundle-locator-v1",
      fieldRule('must be "ironclaw-bundle-locator-v1"'),
    ),
    state_id: uuid,
    bundle_ref: locatorField,
    // Only encrypted bundles leave the run; a name without `.enc` would mean plaintext state was uploaded.
    file_name: z
      .string(fieldRule("must be a string"))
      .regex(
        /^[^\s/]+\.enc$/,
        "must be a file name without slashes ending in .enc (e.g. state_bundle.tar.enc)",
      ),
    /** Digest of exactly the uploaded encrypted bytes (seed 002 §4: hash exactly uploaded bytes). */
    bundle_sha256: sha256HexDigest,
    size_bytes: z.int(fieldRule("must be an integer")).positive("must be a positive number of bytes"),
    /** Digest of the bundle's manifest, as the certificate's `result.new_state.bundle_manifest_sha256`. */
    manifest_sha256: sha256HexDigest,
    ratchet_step: ratchetStepField,
  },
  recordOf("bundle_locator_next.json"),
);

export type BundleLocator = z.output<typeof bundleLocatorSchema>;

export const bundleLocatorContract = defineContract({
  kind: "bundle-locator-next",
  seed: "002",
  title: "Backend bundle_locator_next.json",
  description:
    "Locator, file name, size and sha256 of the outgoing encrypted state bundle, with its manifest digest " +
    "and ratchet step.",
  format: "json",
  schema: bundleLocatorSchema,
});
