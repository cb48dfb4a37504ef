import { execFile, spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bwrapGateRunner,
  bwrapUsable,
  IntegrationTheater,
} from "../../../test/support/integration-theater.js";
import { Integrator } from "./integrate.js";

// The gates in real bwrap cells: the order's acceptance commands run over the merged tree with no network and
// no host path, and main moves only when they pass.
let theater: IntegrationTheater;
let gates: ReturnType<typeof bwrapGateRunner>;
let server: Server;
let hits = 0;
let port = 0;

beforeAll(async () => {
  theater = await IntegrationTheater.create();
  gates = bwrapGateRunner(theater.home);
  server = createServer((_req, res) => {
    hits += 1;
    res.end("reached the host");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await theater.close();
});

const integrator = () =>
  new Integrator({
    store: theater.store,
    theaters: theater.theaters,
    gates: gates.runner,
    dependenciesIntegrated: () => true,
    profiles: { strict: ["! grep -rq FIXME ."] },
    commandTimeoutMs: 60_000,
  });

describe.skipIf(!bwrapUsable)("gates in a cell", () => {
  it("merges an order whose acceptance and profile commands pass over the merged tree", async () => {
    await theater.commitOnMain({ "main-only.txt": "landed on main meanwhile\n" }, "main moved");
    const before = await theater.main();
    // The acceptance command sees both sides of the merge (main's new file and the order's), no .git, and
    // not the link the order committed: links are data, and the gate says it did not get it.
    const accept =
      'grep -q meanwhile main-only.txt && test "$(cat notes/a.txt)" = a && test ! -e .git && test ! -e host-root';
    const wt = await theater.completedOrder("pass", {
      files: { "notes/a.txt": "a\n" },
      links: { "host-root": "/" },
      acceptance: [accept],
    });
    const result = await integrator().integrate({
      theaterId: "demo",
      orderId: "pass",
      worktreePath: wt,
      gateProfile: "strict",
    });
    expect(result.result).toBe("passed");
    expect(result.gates.map((g) => [g.name, g.passed])).toEqual([
      ["aar.json", true],
      ["artifacts", true],
      ["merge", true],
      ["tree", true],
      [accept, true],
      ["! grep -rq FIXME .", true],
    ]);
    expect(result.gates.find((g) => g.name === "tree")?.detail).toMatch(
      /^not copied into the gate cell: host-root \(/,
    );
    expect(result.commit_sha).toBe(await theater.main());
    expect(await theater.mergesOnMain()).toEqual([result.commit_sha]);
    const { hostGit } = await import("../git/host-git.js");
    expect((await hostGit(theater.repo, ["rev-parse", "main^1"])).stdout.trim()).toBe(before);
    const order = await theater.store.getOrder("pass");
    expect(order).toMatchObject({ integration_state: "INTEGRATED", commit_sha: result.commit_sha });
  }, 120_000);

  it("fails the integration on a failing acceptance command and leaves main untouched", async () => {
    const main = await theater.main();
    const wt = await theater.completedOrder("red", {
      files: { "calc.txt": "2+2=5\n" },
      acceptance: [
        "echo checking; grep -q '2+2=4' calc.txt || { echo 'wrong sum' >&2; exit 7; }",
        "echo never runs",
      ],
    });
    const result = await integrator().integrate({ theaterId: "demo", orderId: "red", worktreePath: wt });
    expect(result).toMatchObject({ result: "failed", commit_sha: null });
    expect(result.gates.at(-1)).toMatchObject({ passed: false, detail: "exit 7" });
    expect(result.gates.map((g) => g.name)).not.toContain("echo never runs");
    expect(await theater.main()).toBe(main);
    const failed = (await theater.store.read({ orderId: "red", types: ["INTEGRATION_FAILED"] }))[0];
    expect(failed?.payload).toMatchObject({ stage: "gate", exit: 7, output_tail: "checking\nwrong sum" });
    expect((await theater.store.getOrder("red"))?.integration_state).toBe("FAILED");
  }, 120_000);

  it("holds an acceptance command that calls out to the network: it fails and nothing is reached", async () => {
    const probe = `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log(t), e => { console.error(String(e.cause ?? e)); process.exit(9); })"`;
    // The control: the same command on the host reaches the server (run without blocking, so it can answer).
    const control = await promisify(execFile)("bash", ["-c", probe], { encoding: "utf8" });
    expect(control.stdout).toContain("reached the host");
    expect(hits).toBe(1);
    const main = await theater.main();
    const wt = await theater.completedOrder("net", { files: { "net.txt": "x\n" }, acceptance: [probe] });
    const result = await integrator().integrate({ theaterId: "demo", orderId: "net", worktreePath: wt });
    expect(result.result).toBe("failed");
    expect(result.gates.at(-1)).toMatchObject({ name: probe, passed: false, detail: "exit 9" });
    expect(hits).toBe(1);
    expect(await theater.main()).toBe(main);
  }, 120_000);

  it("holds an acceptance command that reads host paths: the theater's .git and a host file are not there", async () => {
    const secret = `${theater.home}/host-secret.txt`;
    await writeFile(secret, "the host's secret\n");
    const probe = `cat ${theater.repo}/.git/HEAD; cat ${secret}; cat /root/.bashrc >/dev/null 2>&1 && echo root-read; test -r ${secret}`;
    const control = spawnSync("bash", ["-c", probe], { encoding: "utf8" });
    expect(control.stdout).toContain("ref: refs/heads/main");
    expect(control.stdout).toContain("the host's secret");
    expect(control.status).toBe(0);
    const main = await theater.main();
    const wt = await theater.completedOrder("host", { files: { "host.txt": "x\n" }, acceptance: [probe] });
    const result = await integrator().integrate({ theaterId: "demo", orderId: "host", worktreePath: wt });
    expect(result.result).toBe("failed");
    const failed = (await theater.store.read({ orderId: "host", types: ["INTEGRATION_FAILED"] }))[0];
    const tail = String(failed?.payload.output_tail);
    expect(tail).toMatch(/No such file or directory/);
    expect(tail).not.toContain("refs/heads/main");
    expect(tail).not.toContain("the host's secret");
    expect(tail).not.toContain("root-read");
    expect(await theater.main()).toBe(main);
  }, 120_000);
});
