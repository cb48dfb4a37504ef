import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createFakeCellBackend } from "../../test/support/fake-cell.js";
import { ironclawdConfigSchema } from "../contracts/index.js";
import { createLogger } from "../core/index.js";
import { WardenCommandCells } from "./command-cells.js";
import { HostProviders } from "./host-providers.js";

// Two attempts of one order can hold cells at once: a reissued order's next attempt starts while the attempt it
// replaced is still being stopped. Each must keep its own scratch brain through the other's start and release.

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ironclaw-command-cells-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("gives each start of one order's cell a scratch brain of its own, which the other's release leaves alone", async () => {
  const backend = createFakeCellBackend();
  const cells = new WardenCommandCells({
    backend,
    scratchDir: join(dir, "command-cells"),
    config: ironclawdConfigSchema.parse({ new_brains: { provider: "local", model: "test-model" } }),
    providers: new HostProviders({ providers: {} }, {}),
    cellUidOf: () => undefined,
    audit: () => {},
    logger: createLogger("test", { level: "silent" }),
  });
  const spec = { userId: "ada", runId: "run_1", orderId: "o1", purpose: "order" as const };
  const first = await cells.start(spec);
  const second = await cells.start(spec);
  const [one, two] = backend.started.map((cell) => cell.brainRoot);
  expect(one).toBeDefined();
  expect(two).toBeDefined();
  expect(one).not.toBe(two);
  const work = join(two as string, "note.md");
  await writeFile(work, "the second attempt's work\n");

  // The first attempt, superseded, is stopped while the second works: the second's files stay.
  await cells.release(first);
  expect(existsSync(one as string)).toBe(false);
  expect(existsSync(work)).toBe(true);
  await cells.release(second);
  expect(existsSync(two as string)).toBe(false);
});
