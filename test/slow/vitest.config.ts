import { defineConfig } from "vitest/config";

// The microvm cell suite: the same shared conformance + escape suite as the default run, against QEMU
// microVMs (TCG where KVM does not run guests). Boots take seconds, so it has its own script.
export default defineConfig({
  test: {
    include: ["test/cells/cell-suite.test.ts", "test/slow/**/*.test.ts"],
    env: { IRONCLAW_TEST_BACKENDS: "microvm", IRONCLAW_LOG: "silent" },
    testTimeout: 240_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
