import { defineConfig } from "vitest/config";

// The default suite: unit tests beside their files and integration tests under test/.
// Slow suites (Postgres, microvm boots) and the browser journeys have their own configs and npm scripts.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["test/slow/**", "test/ui/browser/**", "ui/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
