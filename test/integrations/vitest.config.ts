import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { INTEGRATION_JOURNEYS } from "./journeys.js";

// `npm run test:integrations`: the slow journeys of skills, secrets and integrations (journeys.ts says which and
// why). One file at a time: each starts cells or servers of its own, and CI runs this leg beside the microVM one.
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: INTEGRATION_JOURNEYS,
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
