import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** IronClaw's data directory: `IRONCLAW_HOME` when set and non-empty, else `~/.ironclaw`. */
export function ironclawHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.IRONCLAW_HOME;
  return resolve(home !== undefined && home !== "" ? home : join(homedir(), ".ironclaw"));
}
