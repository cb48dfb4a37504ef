import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { COMMAND_JOURNEYS } from "./test/command/journeys.js";
import { INTEGRATION_JOURNEYS } from "./test/integrations/journeys.js";

// The default suite: unit tests beside their files and integration tests under test/.
// Slow suites (Postgres, microvm boots, chaos, command's and integrations' journeys) and the browser journeys have their
// own configs and npm scripts.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Test files share their worker's module graph instead of importing the warden, the agent and memory
    // again for each of ~200 files: measured on src/memory + contracts + core (55 files), 75 s instead of 217 s,
    // almost all of it module loading. Tests therefore leave nothing behind: servers, databases, timers and
    // environment variables are closed or restored by the test that changed them.
    isolate: false,
    // Two files at a time on two cores, where vitest's default leaves one core to itself: most files spend their
    // time waiting on processes (cells, the CLI, servers), not computing, so one worker left a core idle.
    maxWorkers: Math.max(2, availableParallelism()),
    exclude: [
      "test/slow/**",
      "test/chaos/**",
      "test/ui/browser/**",
      ...COMMAND_JOURNEYS,
      ...INTEGRATION_JOURNEYS,
      "ui/**",
      "node_modules/**",
    ],
    // `npm run coverage`: the default suite with V8's line coverage of src/ (into coverage/), summed per folder by
    // scripts/coverage-by-folder.ts. Off in `npm test`, which it slows.
    coverage: {
      provider: "v8",
      include: ["src/**/*.ts"],
      exclude: ["src/**/*.test.ts"],
      reporter: ["json-summary", "text-summary"],
    },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
