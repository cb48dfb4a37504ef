import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileTool } from "../../src/agent/index.js";
import { toolHarness } from "../support/tool-harness.js";

let base: string;
let brain: string;
let workspace: string;
let outside: string;
let tools: ReturnType<typeof toolHarness>;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "ironclaw-file-"));
  brain = join(base, "brain");
  workspace = join(base, "workspace");
  outside = join(base, "outside");
  for (const d of [brain, workspace, outside]) mkdirSync(d);
  writeFileSync(join(outside, "secret.txt"), "top secret");
  writeFileSync(join(brain, "notes.md"), "# Notes\n\nalpha beta\n");
  tools = toolHarness([createFileTool({ maxReadBytes: 64 })], [brain, workspace]);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("the file tool inside its roots", () => {
  it("reads, writes, lists and edits brain-relative paths", async () => {
    expect((await tools.call("file", { action: "read", path: "notes.md" })).content).toBe(
      "# Notes\n\nalpha beta\n",
    );
    expect((await tools.call("file", { action: "write", path: "deep/new.md", content: "hi" })).isError).toBe(
      false,
    );
    expect(readFileSync(join(brain, "deep/new.md"), "utf8")).toBe("hi");
    expect((await tools.call("file", { action: "list", path: "." })).content).toBe("deep/\nnotes.md");
    const edit = await tools.call("file", {
      action: "edit",
      path: "notes.md",
      old_text: "alpha",
      new_text: "gamma",
    });
    expect(edit.content).toBe("edited notes.md");
    expect(readFileSync(join(brain, "notes.md"), "utf8")).toContain("gamma beta");
  });

  it("writes absolute paths inside the workspace root", async () => {
    const result = await tools.call("file", {
      action: "write",
      path: join(workspace, "out.txt"),
      content: "x",
    });
    expect(result.isError).toBe(false);
    expect(readFileSync(join(workspace, "out.txt"), "utf8")).toBe("x");
  });

  it("follows no symlink, not even one that stays inside the roots, and lists links as links", async () => {
    symlinkSync(join(brain, "notes.md"), join(brain, "alias.md"));
    const read = await tools.call("file", { action: "read", path: "alias.md" });
    expect(read).toMatchObject({ outcome: "refused" });
    expect(read.content).toContain("symlink");
    expect((await tools.call("file", { action: "list", path: "." })).content).toBe("alias.md@\nnotes.md");
  });

  it("cuts large files at the read limit and says so", async () => {
    writeFileSync(join(brain, "big.md"), "x".repeat(200));
    const result = await tools.call("file", { action: "read", path: "big.md" });
    expect(result.content).toBe(`${"x".repeat(64)}\n[cut: showing 64 of 200 bytes]`);
  });

  it("an edit whose text is ambiguous changes nothing", async () => {
    writeFileSync(join(brain, "twice.md"), "a a");
    const result = await tools.call("file", {
      action: "edit",
      path: "twice.md",
      old_text: "a",
      new_text: "b",
    });
    expect(result).toMatchObject({ isError: true, outcome: "error" });
    expect(readFileSync(join(brain, "twice.md"), "utf8")).toBe("a a");
  });
});

describe("the file tool refuses to leave its roots", () => {
  it.each([
    ["a .. segment", "../outside/secret.txt"],
    ["a .. in the middle", "notes/../../outside/secret.txt"],
    ["an absolute path elsewhere", "/etc/passwd"],
  ])("refuses %s", async (_what, path) => {
    const result = await tools.call("file", { action: "read", path });
    expect(result).toMatchObject({ isError: true, outcome: "refused" });
    expect(result.content).toMatch(/^refused: /);
    expect(result.content).not.toContain("top secret");
  });

  it("refuses the absolute path of a root's sibling", async () => {
    const result = await tools.call("file", { action: "read", path: join(outside, "secret.txt") });
    expect(result).toMatchObject({ outcome: "refused" });
  });

  it("refuses to read through a symlink that points out", async () => {
    symlinkSync(join(outside, "secret.txt"), join(brain, "leak.md"));
    const result = await tools.call("file", { action: "read", path: "leak.md" });
    expect(result).toMatchObject({ outcome: "refused" });
    expect(result.content).toContain("symlink");
  });

  it("refuses to write a new file inside a symlinked directory that points out", async () => {
    symlinkSync(outside, join(brain, "escape"));
    const result = await tools.call("file", { action: "write", path: "escape/planted.txt", content: "x" });
    expect(result).toMatchObject({ outcome: "refused" });
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
  });

  it("refuses to write through a dangling symlink that points out", async () => {
    symlinkSync(join(outside, "created-by-agent.txt"), join(brain, "dangling.md"));
    const result = await tools.call("file", { action: "write", path: "dangling.md", content: "x" });
    expect(result).toMatchObject({ outcome: "refused" });
    expect(existsSync(join(outside, "created-by-agent.txt"))).toBe(false);
  });

  it("refuses a symlinked directory even when it leads to another place inside the roots", async () => {
    mkdirSync(join(brain, "inner"));
    symlinkSync(join(brain, "inner"), join(workspace, "x"));
    const result = await tools.call("file", {
      action: "write",
      path: join(workspace, "x/a.md"),
      content: "x",
    });
    expect(result).toMatchObject({ outcome: "refused" });
    expect(result.content).toContain("symlink");
    expect(existsSync(join(brain, "inner/a.md"))).toBe(false);
  });

  it("audits every refusal with the arguments the model sent", async () => {
    await tools.call("file", { action: "read", path: "../outside/secret.txt" });
    expect(tools.audit.entries).toHaveLength(1);
    expect(tools.audit.entries[0]).toMatchObject({
      tool: "file",
      outcome: "refused",
      isError: true,
      args: '{"action":"read","path":"../outside/secret.txt"}',
    });
  });
});

describe("read-only directories of the brain", () => {
  let guarded: ReturnType<typeof toolHarness>;
  beforeEach(() => {
    mkdirSync(join(brain, "config"));
    writeFileSync(join(brain, "config/irowclaw.toml"), "[tools]\n");
    guarded = toolHarness([createFileTool()], [brain, workspace], ["file"], {
      readOnly: [join(brain, "config"), join(brain, "db")],
    });
  });

  it("are readable but refuse writes, edits and new folders, and keep their content", async () => {
    expect((await guarded.call("file", { action: "read", path: "config/irowclaw.toml" })).content).toBe(
      "[tools]\n",
    );
    for (const args of [
      { action: "write", path: "config/irowclaw.toml", content: "egress = 1" },
      { action: "write", path: "config/new.toml", content: "x" },
      { action: "write", path: "config/agents/evil.toml", content: "x" },
      { action: "edit", path: "config/irowclaw.toml", old_text: "tools", new_text: "x" },
      { action: "write", path: "db/ironclaw.db", content: "x" },
    ]) {
      const result = await guarded.call("file", args);
      expect(result, JSON.stringify(args)).toMatchObject({ outcome: "refused" });
      expect(result.content).toContain("read-only");
    }
    expect(readFileSync(join(brain, "config/irowclaw.toml"), "utf8")).toBe("[tools]\n");
    expect(existsSync(join(brain, "config/agents"))).toBe(false);
  });

  it("are known by identity: renamed to another name they stay read-only", async () => {
    renameSync(join(brain, "config"), join(brain, "renamed"));
    const result = await guarded.call("file", {
      action: "write",
      path: "renamed/irowclaw.toml",
      content: "x",
    });
    expect(result).toMatchObject({ outcome: "refused" });
    expect(readFileSync(join(brain, "renamed/irowclaw.toml"), "utf8")).toBe("[tools]\n");
  });

  it("cannot be written through a hard link elsewhere in the roots", async () => {
    linkSync(join(brain, "config/irowclaw.toml"), join(workspace, "alias.toml"));
    const result = await guarded.call("file", {
      action: "write",
      path: join(workspace, "alias.toml"),
      content: "egress = 1",
    });
    expect(result).toMatchObject({ outcome: "refused" });
    expect(result.content).toContain("hard link");
    expect(readFileSync(join(brain, "config/irowclaw.toml"), "utf8")).toBe("[tools]\n");
  });
});

describe("arguments that do not match the schema", () => {
  it("come back as an isError result naming the field, and nothing runs", async () => {
    const result = await tools.call("file", { action: "write", path: "x.md" });
    expect(result).toMatchObject({ isError: true, outcome: "invalid" });
    expect(result.content).toContain("$.content: is required for write");
    expect(existsSync(join(brain, "x.md"))).toBe(false);
  });

  it("arguments that are not JSON are invalid too", async () => {
    const result = await tools.call("file", '{"action": "read", "path": ');
    expect(result).toMatchObject({ isError: true, outcome: "invalid" });
    expect(result.content).toContain("not valid JSON");
  });

  it("an unknown tool lists the ones that exist", async () => {
    const result = await tools.call("teleport", {});
    expect(result).toMatchObject({ isError: true, outcome: "unknown" });
    expect(result.content).toContain("available tools: file");
  });
});
