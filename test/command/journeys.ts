// Command's journeys that run whole processes or real cells for about a minute each: a worker killed
// mid-order, three orders from a user's chat to three merges, a run stopped by its spend cap, each integrated
// order certified across a restart, the sentinel as its own process. `npm run test:command`
// (test/command/vitest.config.ts) runs them, in CI beside the microVM leg; the default suite leaves them out,
// where they were four of its longest files (~200 s of its file time). It keeps one journey per capability:
// POST /api/command/chat through a real cell (test/warden/command-chat.test.ts), the worker in real cells
// (test/command/worker-cell.test.ts) and `ironclaw command serve` (test/cli/command-serve.test.ts).
export const COMMAND_JOURNEYS = [
  "test/command/worker-sigkill.test.ts",
  "test/warden/command-journey.test.ts",
  "test/warden/command-spend.test.ts",
  "test/warden/order-certificates.test.ts",
  "test/cli/sentinel-process.test.ts",
];
