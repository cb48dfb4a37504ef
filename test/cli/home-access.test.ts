import { spawn } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliEntry } from "../support/cli-entry.js";
import { placeNodeBinary } from "../support/node-binary.js";
import { REPO_ROOT } from "./run-cli.js";

/**
 * A 0700 IRONCLAW_HOME that belongs to someone else: as root the commands run as `nobody` against a home root
 * made; as another user, against a home whose permissions were taken away. Either way the home is real and the
 * refusal comes from the kernel.
 */
const root = process.getuid?.() === 0;
const NOBODY = 65534;

let base: string;
let home: string;
let node: string;
beforeEach(async () => {
  base = mkdtempSync(join(tmpdir(), "ironclaw-home-access-"));
  chmodSync(base, 0o755);
  // As root the commands run as nobody, who must be able to start this Node wherever it lives (Node from the
  // npm registry sits under /root/.cache); the refusal under test is the home's, not the binary's.
  node = process.execPath;
  if (root) {
    node = join(base, "node");
    await placeNodeBinary(node);
  }
});
afterEach(() => {
  chmodSync(home, 0o700);
  rmSync(base, { recursive: true, force: true });
});

function makeHome(owner: "other" | "self"): void {
  home = mkdtempSync(join(base, "home-"));
  if (root && owner === "self") chownSync(home, NOBODY, NOBODY);
  chmodSync(home, owner === "other" && !root ? 0o000 : 0o700);
}

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const command = [node, ...cliEntry(), ...args];
  const [file, ...argv] = root ? ["runuser", "-u", "nobody", "--", ...command] : command;
  return new Promise((resolve, reject) => {
    const child = spawn(file as string, argv, {
      cwd: REPO_ROOT,
      env: { ...process.env, HOME: base, IRONCLAW_HOME: home, IRONCLAW_LOG: "silent" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("an IRONCLAW_HOME this user may not enter", () => {
  it("stops serve, cell exec and user list with one line naming the file, the owner and the fix", async () => {
    // Positive control: the same user runs the same command against a home it owns.
    makeHome("self");
    expect(await run(["user", "list"])).toEqual({ code: 0, stderr: "" });
    makeHome("other");
    const uid = root ? NOBODY : process.getuid?.();
    const owner = root ? 0 : uid;
    const cases: Array<[string[], string]> = [
      [["serve", "--port", "0"], "open"],
      [["cell", "exec", "--user", "alice", "--dev-handler", "echo", "hi"], "mkdir"],
      [["user", "list"], "open"],
    ];
    // Separate processes (each runs as another uid), independent of one another: they run side by side.
    const results = await Promise.all(cases.map(([args]) => run(args)));
    for (const [i, [args, syscall]] of cases.entries()) {
      const { code, stderr } = results[i] ?? { code: null, stderr: "" };
      const lines = stderr
        .trim()
        .split("\n")
        // What the host cannot enforce is a warning of its own, not part of the failure.
        .filter((l) => !l.startsWith("no running cell") && !l.startsWith("warning:"));
      expect([args[0], code, lines.length]).toEqual([args[0], 1, 1]);
      expect(lines[0]).toMatch(
        new RegExp(
          `^ironclaw ${args[0]}: cannot ${syscall} ${home}/\\S+: permission denied\\. IRONCLAW_HOME ${home} belongs to uid ${owner} \\(mode 0${root ? "700" : "000"}\\) and ironclaw runs as uid ${uid}: `,
        ),
      );
      expect(stderr).not.toMatch(/^\s+at /m);
    }
  }, 60_000);
});
