import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The ledger suite, the command queue's and workers' journeys and command's chaos run against PostgreSQL. `npm run
// test:postgres` starts a throwaway cluster (scripts/postgres-test-cluster.sh), which exports
// IRONCLAW_TEST_POSTGRES_URL, then runs this config.
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: [
      "test/ledger/**/*.test.ts",
      "test/command/queue-postgres.test.ts",
      "test/command/workers-postgres.test.ts",
      "test/chaos/command-chaos-postgres.test.ts",
    ],
    env: { IRONCLAW_LEDGER_TEST_STORE: "postgres" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
