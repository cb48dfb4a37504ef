import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type JobQueue, SqliteJobQueue } from "../../src/command/index.js";
import { queueConformance } from "./queue-conformance.js";

queueConformance({
  name: "sqlite",
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "ironclaw-queue-"));
    const file = join(dir, "queue.db");
    const opened: JobQueue[] = [];
    const connect = async () => {
      const queue = await SqliteJobQueue.open(file);
      opened.push(queue);
      return queue;
    };
    return {
      queue: await connect(),
      connect,
      args: ["--sqlite", file],
      async close() {
        for (const queue of opened) await queue.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
