import { type ChildProcess, spawn } from "node:child_process";
import { probeBwrap } from "../../src/cells/index.js";
import { cliEntry } from "./cli-entry.js";
import { HOST_KEY } from "./warden-harness.js";

/**
 * `ironclaw serve` as its own process on a given IRONCLAW_HOME, resolved with its URL once it prints it. The
 * caller keeps the child to kill it (kill -9 tests) and must end it when done.
 */
export function startServeProcess(home: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...cliEntry(), "serve", "--port", "0"], {
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

let bwrapSetting: Promise<string> | undefined;

/**
 * The `[cells]` lines for an ironclawd.toml of a test that starts `ironclaw serve` several times: the bwrap backend
 * named outright where this host can run it, so each start skips the host probes of `backend = "auto"` (the KVM
 * one waits out its 3 s timeout on a host without usable KVM). Elsewhere nothing, and auto chooses as it would.
 * Probed once per test file.
 */
export function cellsSettingForServe(): Promise<string> {
  bwrapSetting ??= probeBwrap().then((bwrap) => (bwrap.usable ? '\n[cells]\nbackend = "bwrap"\n' : ""));
  return bwrapSetting;
}
