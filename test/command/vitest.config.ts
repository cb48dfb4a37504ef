import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { COMMAND_JOURNEYS } from "./journeys.js";

// `npm run test:command`: command's slow journeys (journeys.ts says which and why). One file at a time: each
// already runs several processes or cells, and CI runs this leg beside the microVM one on two cores.
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: COMMAND_JOURNEYS,
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
