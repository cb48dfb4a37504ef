import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEntry } from "../support/cli-entry.js";
import { cellsSettingForServe } from "../support/serve-process.js";
import { REPO_ROOT } from "./run-cli.js";

// `ironclaw command serve` as its own process: command's API on a headless host, without the UI.

const root = mkdtempSync(join(tmpdir(), "ironclaw-command-serve-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("ironclaw command serve", () => {
  it("serves command's routes and the ledger from IRONCLAW_HOME, no UI, and stops on SIGTERM", async () => {
    const home = join(root, "home");
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(home, "ironclawd.toml"),
      `${await cellsSettingForServe()}\n`.replace("[cells]", "[cells]\npool_size = 0"),
    );
    const child = spawn(process.execPath, [...cliEntry(), "command", "serve", "--port", "0"], {
      cwd: REPO_ROOT,
      env: { ...process.env, IRONCLAW_HOME: home, IRONCLAW_LOG: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const found = /serving at (http:\/\/\S+)/.exec(out)?.[1];
          if (found) resolve(found);
        });
        void exited.then((code) => reject(new Error(`command serve exited (${code})`)));
      });
      const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as {
        paths: Record<string, unknown>;
      };
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/runs", "/api/ledger/events"]));
      expect((await fetch(`${url}/ui/`)).status).toBe(404);
      expect((await fetch(`${url}/api/runs`)).status).toBe(401);
      expect(existsSync(join(home, "ledger.db"))).toBe(true);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
