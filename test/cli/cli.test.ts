import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { allContracts } from "../../src/contracts/index.js";
import { loadFixtureSet } from "../contracts/fixtures.js";
import { cliEntry } from "../support/cli-entry.js";
import { REPO_ROOT, runIronclaw, runIronclawInProcess } from "./run-cli.js";

describe("ironclaw --help", () => {
  it("lists every command", async () => {
    // The binary itself, once: argv, real stdout and the exit code.
    const { code, stdout } = await runIronclaw(["--help"]);
    expect(code).toBe(0);
    for (const name of ["validate", "schema", "doctor"])
      expect(stdout).toMatch(new RegExp(`^  ${name}\\s`, "m"));
  });

  it("ends quietly when its reader closes the pipe first (`ironclaw … | head`)", async () => {
    // The pipe is closed before the CLI has started, so its first write fails with EPIPE. The built binary and
    // the sources share the entry that handles this (runFromProcess).
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [...cliEntry(), "--help"], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.destroy();
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
    expect(result.stderr).not.toContain("EPIPE");
    expect(result.code).toBe(0);
  });

  it("rejects an unknown command with exit code 2", async () => {
    const { code, stderr } = await runIronclawInProcess(["frobnicate"]);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown command 'frobnicate'");
  });
});

describe("ironclaw validate", () => {
  it("lists every contract kind", async () => {
    const { code, stdout } = await runIronclawInProcess(["validate", "--list"]);
    expect(code).toBe(0);
    for (const c of allContracts) expect(stdout).toMatch(new RegExp(`^${c.kind}\\s`, "m"));
  });

  it("rejects an unknown kind as a usage error", async () => {
    const { code, stderr } = await runIronclawInProcess(["validate", "no-such-kind", "x.json"]);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown kind 'no-such-kind'");
  });

  it("reports a missing file as a problem of that file", async () => {
    const kind = allContracts[0]?.kind ?? "";
    const { code, stdout } = await runIronclawInProcess(["validate", kind, "/nonexistent/file.json"]);
    expect(code).toBe(1);
    expect(stdout).toContain("cannot read /nonexistent/file.json");
  });

  // Every fixture goes through the CLI's own code path in-process; the subprocess tests around it prove the
  // binary wiring (argv, stdin, exit codes) once.
  describe.each(allContracts.map((c) => [c.kind]))("%s fixtures", (kind) => {
    const set = loadFixtureSet(kind);

    it("accepts every valid fixture and prints valid, with a warning for each key no seed names", async () => {
      const { code, stdout } = await runIronclawInProcess(["validate", kind, ...set.valid]);
      const verdicts = stdout
        .trim()
        .split("\n")
        .filter((line) => !line.startsWith("  warning "));
      expect(verdicts).toEqual(
        set.valid.map((f) => {
          const noted = set.warnings.has(f) ? " (1 warning)" : "";
          return set.valid.length > 1 ? `${f}: valid${noted}` : `valid${noted}`;
        }),
      );
      for (const path of set.warnings.values()) expect(stdout).toContain(`  warning ${path}: `);
      expect(code).toBe(0);
    });

    it.runIf(set.warnings.size > 0)("refuses each unknown key under --strict, naming its path", async () => {
      const files = [...set.warnings.keys()];
      const { code, stdout } = await runIronclawInProcess(["validate", "--json", "--strict", kind, ...files]);
      expect(code).toBe(1);
      const results = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { valid: boolean; issues: Array<{ path: string; code: string }> });
      for (const [i, file] of files.entries()) {
        expect(results[i]?.valid).toBe(false);
        expect(results[i]?.issues).toContainEqual(
          expect.objectContaining({ path: set.warnings.get(file), code: "unknown_key" }),
        );
      }
    });

    it("rejects every invalid fixture, naming the field path", async () => {
      const { code, stdout } = await runIronclawInProcess([
        "validate",
        "--json",
        kind,
        ...set.invalid.map((f) => f.file),
      ]);
      expect(code).toBe(1);
      const results = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { file: string; valid: boolean; issues: Array<{ path: string }> });
      expect(results.map((r) => r.file)).toEqual(set.invalid.map((f) => f.file));
      for (const [i, fixture] of set.invalid.entries()) {
        expect(results[i]?.valid).toBe(false);
        expect(results[i]?.issues.map((x) => x.path)).toContain(fixture.expectPath);
      }
    });
  });

  it("reads stdin for -", async () => {
    const contract = allContracts[0];
    if (!contract) throw new Error("no contracts registered");
    const set = loadFixtureSet(contract.kind);
    const validFile = set.valid.find((f) => !set.warnings.has(f)) ?? "";
    const invalid = set.invalid[0];
    // Through the binary: the process's own stdin.
    const ok = await runIronclaw(["validate", contract.kind, "-"], {
      stdin: readFileSync(validFile, "utf8"),
    });
    expect([ok.code, ok.stdout]).toEqual([0, "valid\n"]);
    const bad = await runIronclawInProcess(["validate", contract.kind, "-"], {
      stdin: readFileSync(invalid?.file ?? "", "utf8"),
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`  ${invalid?.expectPath}`);
  });

  it("accepts a key no seed names with a warning, and refuses it under --strict", async () => {
    const fixtures = new URL("../fixtures/contracts/", import.meta.url).pathname;
    const dispatch = JSON.parse(readFileSync(`${fixtures}dispatch/valid/seed-dispatch.json`, "utf8"));
    const stdin = JSON.stringify({ ...dispatch, requested_by: "ops" });
    const lenient = await runIronclawInProcess(["validate", "dispatch", "-"], { stdin });
    expect([lenient.code, lenient.stdout]).toEqual([
      0,
      "valid (1 warning)\n  warning $.requested_by: is not a field of this contract; accepted and kept as is\n",
    ]);
    const strict = await runIronclawInProcess(["validate", "--strict", "dispatch", "-"], { stdin });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(
      /^invalid \(1 problem\)\n {2}\$\.requested_by: is not a field of this contract/,
    );
  });
});

describe("ironclaw schema export", () => {
  const dir = mkdtempSync(join(tmpdir(), "ironclaw-schemas-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes one JSON Schema per contract and an index", async () => {
    const { code, stdout } = await runIronclawInProcess(["schema", "export", dir]);
    expect(code).toBe(0);
    expect(stdout).toContain(`wrote ${allContracts.length} schemas`);
    const files = readdirSync(dir).sort();
    expect(files).toEqual([...allContracts.map((c) => `${c.kind}.schema.json`), "index.json"].sort());
    for (const c of allContracts) {
      const schema = JSON.parse(readFileSync(join(dir, `${c.kind}.schema.json`), "utf8"));
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema.title).toBe(c.title);
    }
  });
});

describe("ironclaw validate completion --dispatch", () => {
  const fixtures = new URL("../fixtures/contracts/", import.meta.url).pathname;
  const dispatch = `${fixtures}dispatch/valid/seed-dispatch.json`;
  const completion = readFileSync(`${fixtures}completion/valid/seed-completion.txt`, "utf8");

  it("passes the seed's completion through every gate to review_requested", async () => {
    const { code, stdout } = await runIronclawInProcess(
      ["validate", "completion", "-", "--dispatch", dispatch],
      {
        stdin: completion,
      },
    );
    expect([code, stdout]).toEqual([0, "<stdin>: review_requested\nvalid\n"]);
  });

  it("fails the contract when the completion answers another run", async () => {
    const other = completion.replace('"run_id": "task-20260222-001"', '"run_id": "task-other"');
    const { code, stdout } = await runIronclawInProcess(
      ["validate", "completion", "-", "--dispatch", dispatch],
      {
        stdin: other,
      },
    );
    expect(code).toBe(1);
    expect(stdout).toContain("<stdin>: failed_contract");
    expect(stdout).toMatch(/^ {2}\$\.run_id: .*task-20260222-001/m);
  });

  it("passes a completion with an extra note to review, warning about the note; --strict refuses it", async () => {
    const noted = completion.replace('"run_id":', '"note": "also bumped a dependency",\n  "run_id":');
    const args = ["validate", "completion", "-", "--dispatch", dispatch];
    const lenient = await runIronclawInProcess(args, { stdin: noted });
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toBe(
      "<stdin>: review_requested\nvalid (1 warning)\n  warning $.note: is not a field of this contract; accepted and kept as is\n",
    );
    const strict = await runIronclawInProcess([...args, "--strict"], { stdin: noted });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain("  $.note: is not a field of this contract (--strict");
  });

  it("refuses a dispatch that is not a JSON object", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ironclaw-dispatch-"));
    const file = join(dir, "dispatch.json");
    writeFileSync(file, '"implement it please"');
    const { code, stderr } = await runIronclawInProcess(["validate", "completion", "-", "--dispatch", file], {
      stdin: completion,
    });
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(2);
    expect(stderr).toContain("plain text is rejected");
  });
});
