import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bwrapGateRunner,
  bwrapUsable,
  IntegrationTheater,
} from "../../../test/support/integration-theater.js";
import { hostGit } from "../git/host-git.js";
import { Integrator } from "./integrate.js";

// The merged tree attached to the gate cell (its scratch checkout bound at work/, .git masked) instead of copied
// in file by file: the gate sees the whole merge, can write its scratch freely, and reaches nothing of git's.
const asRoot = process.getuid?.() === 0;
let theater: IntegrationTheater;

beforeAll(async () => {
  theater = await IntegrationTheater.create();
});
afterAll(async () => {
  await theater.close();
});

describe.skipIf(!bwrapUsable || !asRoot)("a gate with the merged tree attached", () => {
  it("runs over the merge with no .git; what the gate writes stays out of main and the scratch is gone", async () => {
    const { runner } = bwrapGateRunner(theater.home, { attach: true });
    let scratch = "";
    const integrator = new Integrator({
      store: theater.store,
      theaters: theater.theaters,
      gates: {
        run: (request) => {
          scratch = request.treeDir;
          return runner.run(request);
        },
      },
      dependenciesIntegrated: () => true,
      commandTimeoutMs: 60_000,
    });
    // The merged checkout has no .git at all: the gate's cell is never told where the repository is. One it writes
    // there is thrown away with the checkout.
    const sees = 'test "$(cat notes/a.txt)" = a && test ! -e .git && test -d .ironclaw';
    const tampers = [
      "echo 'gitdir: /tmp/elsewhere' > .git",
      "ln -s /etc/passwd etc-link",
      "echo tampered > notes/a.txt",
    ].join(" && ");
    const wt = await theater.completedOrder("attached", {
      files: { "notes/a.txt": "a\n" },
      acceptance: [sees, tampers],
    });
    const result = await integrator.integrate({ theaterId: "demo", orderId: "attached", worktreePath: wt });
    expect(result.gates.map((g) => [g.name, g.passed])).toEqual([
      ["aar.json", true],
      ["artifacts", true],
      ["merge", true],
      [sees, true],
      [tampers, true],
    ]);
    expect(result.result).toBe("passed");
    const merged = result.commit_sha as string;
    expect((await hostGit(theater.repo, ["show", `${merged}:notes/a.txt`])).stdout).toBe("a\n");
    const files = (await hostGit(theater.repo, ["ls-tree", "-r", "--name-only", merged])).stdout;
    expect(files).not.toContain("etc-link");
    await integrator.settled();
    expect(scratch).not.toBe("");
    expect(existsSync(scratch)).toBe(false);
    expect(existsSync(`${theater.repo}/etc-link`)).toBe(false);
  }, 120_000);
});
