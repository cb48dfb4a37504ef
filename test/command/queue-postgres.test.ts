import pg from "pg";
import { describe } from "vitest";
import { type JobQueue, PostgresJobQueue } from "../../src/command/index.js";
import { queueConformance } from "./queue-conformance.js";

// Runs under `npm run test:postgres`, whose throwaway cluster exports the URL; skipped in the default suite.
const url = process.env.IRONCLAW_TEST_POSTGRES_URL;
let schemas = 0;

describe.skipIf(!url)("postgres", () => {
  queueConformance({
    name: "postgres",
    async open() {
      const connectionString = url ?? "";
      // A schema per test keeps tests independent on one cluster, also across parallel test files.
      const schema = `q_${process.pid}_${++schemas}_${Date.now().toString(36)}`;
      const opened: JobQueue[] = [];
      const connect = async () => {
        const queue = await PostgresJobQueue.open({ url: connectionString, schema, poolSize: 2 });
        opened.push(queue);
        return queue;
      };
      return {
        queue: await connect(),
        connect,
        args: ["--postgres", connectionString, schema],
        async close() {
          for (const queue of opened) await queue.close();
          const client = new pg.Client({ connectionString });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await client.end();
        },
      };
    },
  });
});
