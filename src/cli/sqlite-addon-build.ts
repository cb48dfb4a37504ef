import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The symbol an addon imports when it was compiled against Node 24.19+'s node_object_wrap.h: that header adds
 * and removes an environment cleanup hook per wrapped object, and the removal, run from a GC callback with no
 * context entered, aborts the process (nodejs/node#65446). better-sqlite3's own code only ever adds its one
 * hook, so the import comes from the header alone.
 */
const ABORTING_IMPORT = "_ZN4node28RemoveEnvironmentCleanupHook";

/** Whether the addon file at `file` holds Node 24.19+'s ObjectWrap, which aborts when a statement is collected. */
export async function abortsWhenCollected(file: string): Promise<boolean> {
  return (await readFile(file)).includes(ABORTING_IMPORT);
}

/** The better-sqlite3 addon this package loads, where npm builds it. */
export function betterSqliteAddon(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("better-sqlite3/package.json")), "build/Release/better_sqlite3.node");
}
