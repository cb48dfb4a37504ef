import pg from "pg";
import { describe, expect, it } from "vitest";
import { type JobQueue, PostgresJobQueue } from "../../src/command/index.js";
import { queueConformance } from "./queue-conformance.js";
import { queueJob } from "./queue-jobs.js";

// Runs under `npm run test:postgres`, whose throwaway cluster exports the URL; skipped in the default suite.
const url = process.env.IRONCLAW_TEST_POSTGRES_URL ?? "";
let schemas = 0;

/** A schema per test keeps tests independent on one cluster, also across parallel test files. */
function freshSchema(): string {
  return `q_${process.pid}_${++schemas}_${Date.now().toString(36)}`;
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

describe.skipIf(!url)("postgres", () => {
  queueConformance({
    name: "postgres",
    async open() {
      const schema = freshSchema();
      const opened: JobQueue[] = [];
      const connect = async () => {
        const queue = await PostgresJobQueue.open({ url, schema, poolSize: 2 });
        opened.push(queue);
        return queue;
      };
      return {
        queue: await connect(),
        connect,
        args: ["--postgres", url, schema],
        async close() {
          for (const queue of opened) await queue.close();
          await dropSchema(schema);
        },
      };
    },
  });

  it("creates a new queue once when several workers open it at the same moment", async () => {
    const schema = freshSchema();
    const queues = await Promise.all(
      Array.from({ length: 6 }, () => PostgresJobQueue.open({ url, schema, poolSize: 1 })),
    );
    try {
      const results = await Promise.all(queues.map((q) => q.enqueue(queueJob("o1"))));
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
    } finally {
      for (const queue of queues) await queue.close();
      await dropSchema(schema);
    }
  });
});
