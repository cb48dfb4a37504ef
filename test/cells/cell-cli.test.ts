import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
let home = "";

async function ironclaw(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
      env: { ...process.env, IRONCLAW_HOME: home, IRONCLAW_LOG: "silent" },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-cell-cli-"));
  await chmod(home, 0o755);
  // The process backend keeps this test about the CLI's plumbing; the suites cover isolation.
  await writeFile(join(home, "ironclawd.toml"), '[cells]\nbackend = "process"\n');
});
afterAll(async () => {
  await ironclaw("cell", "stop", "--user", "ada");
  await rm(home, { recursive: true, force: true });
});

describe("ironclaw cell", () => {
  it("sends one message to a temporary cell and prints the streamed reply", async () => {
    const result = await ironclaw("cell", "exec", "--user", "ada", "--dev-handler", "echo", "hello cell");
    expect(result.stdout).toBe("hello cell\n");
    expect(result.stderr).toContain("does not isolate");
  });

  it("keeps a cell running between commands, lists it, relays exec and stops it", async () => {
    expect((await ironclaw("cell", "start", "--user", "ada", "--dev-handler", "echo")).code).toBe(0);
    const listed = JSON.parse((await ironclaw("cell", "list", "--json")).stdout) as Array<{ user: string }>;
    expect(listed.map((c) => c.user)).toEqual(["ada"]);
    const wrote = await ironclaw(
      "cell",
      "exec",
      "--user",
      "ada",
      "--write",
      "notes/a.md",
      "--content",
      "# A\n",
    );
    expect(wrote.code).toBe(0);
    expect((await ironclaw("cell", "exec", "--user", "ada", "--read", "notes/a.md")).stdout).toBe("# A\n");
    expect((await ironclaw("cell", "stop", "--user", "ada")).stdout).toContain("stopped");
    expect((await ironclaw("cell", "list")).stdout).toContain("no cells running");
  }, 180_000);

  it("reports a cell that cannot start in one line, without a stack, and exits 1", async () => {
    // A brain that is a link is refused before any cell runs (the host never follows it).
    await mkdir(join(home, "elsewhere"), { recursive: true });
    await mkdir(join(home, "users", "bob"), { recursive: true });
    await symlink(join(home, "elsewhere"), join(home, "users", "bob", "brain"));
    const brain = join(home, "users", "bob", "brain");
    const expected = `ironclaw cell: ${brain} is a symbolic link: a brain must be a real directory; move it away and start again\n`;
    const exec = await ironclaw("cell", "exec", "--user", "bob", "--dev-handler", "echo", "hello");
    expect(exec.code).toBe(1);
    expect(exec.stderr.endsWith(expected), exec.stderr).toBe(true);
    expect(exec.stderr).not.toMatch(/\n\s+at /);
    const start = await ironclaw("cell", "start", "--user", "bob", "--dev-handler", "echo");
    expect(start.code).toBe(1);
    expect(start.stderr).toBe(expected);
  }, 180_000);

  it("refuses a command without a user", async () => {
    const result = await ironclaw("cell", "exec", "hello");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing --user <uid>");
  });
});
