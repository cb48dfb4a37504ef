import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Chaos on the embedded stack (npm run test:chaos): processes killed with SIGKILL through a 50-order run, which
// takes minutes; its PostgreSQL twin runs under test:postgres.
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["test/chaos/command-chaos.test.ts"],
    testTimeout: 480_000,
    hookTimeout: 120_000,
  },
});
