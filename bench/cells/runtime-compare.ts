// The inmate as separate compiled modules (dist/), as the bundle (dist/cell) through its loader and code cache, and
// as the bundle's startup snapshot (what bwrap cells use where the build made one), in bwrap cells, run by run
// in alternation so a host whose load changes treats all alike: a new user's first echo reply, and an agent
// cell's Ready (its brain opened and indexed).
import { join } from "node:path";
import {
  bundleRuntime,
  type CellHandle,
  createBwrapBackend,
  distRuntime,
  type GuestRuntime,
} from "../../src/cells/index.js";
import { percentile } from "../percentile.js";

export interface RuntimeFigures {
  runtime: string;
  echoFirstReplyMs: number;
  agentReadyMs: number;
  runs: { echo: number; agent: number };
}

async function answer(cell: CellHandle, handler: "echo" | "agent"): Promise<void> {
  const reply =
    handler === "agent"
      ? await cell.call({ type: "Hello", providers: [] }, { timeoutMs: 300_000 })
      : await cell.call({ type: "FileOpRequest", op: "list", path: "." }, { timeoutMs: 120_000 });
  if (reply.type === "Error") throw new Error(`the cell answered ${reply.code}: ${reply.message}`);
}

export async function compareRuntimes(home: string, echoRuns = 7, agentRuns = 3): Promise<RuntimeFigures[]> {
  const runtimes: Array<[string, GuestRuntime]> = [
    ["dist (modules)", distRuntime()],
    ["bundle + code cache", bundleRuntime(undefined, undefined, { snapshots: false })],
    ["bundle snapshot", bundleRuntime()],
  ];
  const times = new Map(runtimes.map(([name]) => [name, { echo: [] as number[], agent: [] as number[] }]));
  for (const handler of ["echo", "agent"] as const) {
    const runs = handler === "echo" ? echoRuns : agentRuns;
    for (let i = 0; i < runs; i++) {
      for (const [name, runtime] of runtimes) {
        const backend = createBwrapBackend({ runtime, onWarning: () => {} });
        const user = `rt-${name.replace(/\W+/g, "")}-${handler}-${i}`;
        const started = performance.now();
        const cell = await backend.start({
          userId: user,
          userDir: join(home, "runtimes", user),
          handler,
          runAs: { uid: 63_000 + i, gid: 63_000 + i },
          startTimeoutMs: 300_000,
        });
        await answer(cell, handler);
        times.get(name)?.[handler].push(performance.now() - started);
        await cell.stop();
      }
    }
  }
  return runtimes.map(([name]) => {
    const t = times.get(name) ?? { echo: [], agent: [] };
    return {
      runtime: name,
      echoFirstReplyMs: percentile(t.echo, 50),
      agentReadyMs: percentile(t.agent, 50),
      runs: { echo: t.echo.length, agent: t.agent.length },
    };
  });
}
