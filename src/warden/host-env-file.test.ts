import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hostEnvFile, parseEnvText, readHostEnv, withHostEnv, writeHostEnv } from "./host-env-file.js";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), "ironclaw-env-"));
  homes.push(home);
  return home;
}

describe("the warden's env file", () => {
  it("is written 0600 and reads back what was set, quoted where a shell or systemd needs it", () => {
    const home = freshHome();
    writeHostEnv(home, { OPENROUTER_API_KEY: "sk-or-v1-abc", ODD: 'a b"c$d' });
    expect(statSync(hostEnvFile(home)).mode & 0o777).toBe(0o600);
    expect(readFileSync(hostEnvFile(home), "utf8")).toContain('ODD="a b\\"c\\$d"');
    expect(readHostEnv(home)).toEqual({ OPENROUTER_API_KEY: "sk-or-v1-abc", ODD: 'a b"c$d' });
  });

  it("replaces a variable in place and keeps every other line, comments included", () => {
    const home = freshHome();
    writeFileSync(hostEnvFile(home), "# mine\nA=1\nB='two words'\n", { mode: 0o644 });
    writeHostEnv(home, { A: "3", C: "4" });
    expect(readFileSync(hostEnvFile(home), "utf8")).toBe("# mine\nA=3\nB='two words'\nC=4\n");
    expect(statSync(hostEnvFile(home)).mode & 0o777).toBe(0o600);
  });

  it("refuses a value of two lines, naming the variable, and writes nothing", () => {
    const home = freshHome();
    expect(() => writeHostEnv(home, { KEY: "a\nEVIL=1" })).toThrow(/KEY.*one line/);
    expect(readHostEnv(home)).toEqual({});
  });

  it("lies under the process's own environment", () => {
    const home = freshHome();
    writeHostEnv(home, { A: "file", B: "file" });
    expect(withHostEnv(home, { B: "process" })).toEqual({ A: "file", B: "process" });
    expect(parseEnvText("# c\n\nX = 'y'\nnot a line\n")).toEqual({ X: "y" });
  });
});
