import { type ChildProcess, spawn } from "node:child_process";
import { HOST_KEY } from "./warden-harness.js";

/**
 * `ironclaw serve` as its own process on a given IRONCLAW_HOME, resolved with its URL once it prints it. The
 * caller keeps the child to kill it (kill -9 tests) and must end it when done.
 */
export function startServeProcess(home: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", "--port", "0"], {
    env: { ...process.env, IRONCLAW_HOME: home, TEST_MODEL_KEY: HOST_KEY, IRONCLAW_LOG: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /running at (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ child, url });
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${err.slice(-2000)}`)));
  });
}
