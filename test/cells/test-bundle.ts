import { rm } from "node:fs/promises";
import { join } from "node:path";
import { bundleGuest, bundleRuntime, type GuestRuntime, PACKAGE_ROOT } from "../../src/cells/index.js";

/**
 * The inmate bundled from the sources as they are now, into a directory of this test process's own inside the
 * package (the bundle's externals resolve from the package's node_modules), built once per test file.
 */
export const TEST_BUNDLE_DIR = `node_modules/.cache/ironclaw-test-bundle-${process.pid}`;
let built: Promise<GuestRuntime> | undefined;

export function testBundleRuntime(): Promise<GuestRuntime> {
  built ??= bundleGuest({ outDir: TEST_BUNDLE_DIR }).then(() => bundleRuntime(PACKAGE_ROOT, TEST_BUNDLE_DIR));
  return built;
}

export async function removeTestBundle(): Promise<void> {
  built = undefined;
  await rm(join(PACKAGE_ROOT, TEST_BUNDLE_DIR), { recursive: true, force: true });
}
