import { defineConfig } from "vitest/config";

// `npm run test:ui`: the UI's controllers without a browser (Solid's client build, so stores react as they do
// in the page), then the journeys in Chromium against a real warden, a real cell and the scripted model.
export default defineConfig({
  test: {
    projects: [
      {
        resolve: { conditions: ["browser", "development"] },
        ssr: {
          resolve: { conditions: ["browser", "development"], externalConditions: ["browser", "development"] },
        },
        test: {
          name: "controllers",
          include: ["ui/src/**/*.test.ts"],
          server: { deps: { inline: [/solid-js/] } },
        },
      },
      {
        test: {
          name: "browser",
          include: ["test/ui/browser/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
