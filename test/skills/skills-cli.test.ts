import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIronclaw, runIronclawInProcess } from "../cli/run-cli.js";

let home: string;
let source: string;
const env = () => ({ IRONCLAW_HOME: home });
const lock = () => readFileSync(join(home, "users/ada/skills.lock"), "utf8");

const WEATHER = `---
name: weather
description: Current weather and forecasts.
metadata: {"openclaw": {"requires": {"bins": ["sh"]}, "install": [{"kind": "brew", "formula": "curl"}]}}
---
curl -s "wttr.in/London?format=3"
`;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "skills-cli-"));
  source = join(home, "src", "weather");
  mkdirSync(source, { recursive: true });
  writeFileSync(join(source, "SKILL.md"), WEATHER);
  const added = await runIronclawInProcess(["user", "add", "ada"], { env: env() });
  expect(added.code).toBe(0);
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

// Each run of the binary loads the CLI from source (a few seconds on a busy machine); five of them run here.
describe("ironclaw skills", { timeout: 240_000 }, () => {
  it("installs, lists, asks again to update, and removes, through the binary", async () => {
    // No terminal and no approval: the review is shown and nothing is installed.
    const unasked = await runIronclaw(["skills", "install", source, "--user", "ada"], { env: env() });
    expect(unasked.code).toBe(1);
    const sha = /^skill weather {2}sha256 ([0-9a-f]{64})$/m.exec(unasked.stdout)?.[1] ?? "";
    expect(sha).not.toBe("");
    expect(unasked.stdout).toContain("hosts: none");
    expect(unasked.stdout).toMatch(/ignored install specs: brew curl \(not run: /);
    expect(unasked.stderr).toContain(`there is no terminal to ask on`);
    expect(unasked.stderr).toContain(`--approve ${sha}`);

    const installed = await runIronclaw(["skills", "install", source, "--user", "ada", "--approve", sha], {
      env: env(),
    });
    expect(installed.stderr).toBe("");
    expect(installed.stdout).toContain(`installed weather for ada (sha256 ${sha})`);

    const listed = await runIronclaw(["skills", "list", "--user", "ada", "--json"], { env: env() });
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ name: "weather", sha256: sha, available: true }),
    ]);

    writeFileSync(join(source, "SKILL.md"), WEATHER.replace("London", "Paris"));
    const pinned = lock();
    const reasked = await runIronclaw(["skills", "update", source, "--user", "ada"], { env: env() });
    expect(reasked.code).toBe(1);
    expect(reasked.stdout).toContain(`weather installed: sha256 ${sha}; the new version:`);
    expect(lock()).toBe(pinned);
    const newSha = /^skill weather {2}sha256 ([0-9a-f]{64})$/m.exec(reasked.stdout)?.[1] ?? "";
    expect(newSha).not.toBe(sha);

    const updated = await runIronclawInProcess(
      ["skills", "update", source, "--user", "ada", "--approve", newSha],
      { env: env() },
    );
    expect(updated.stdout).toContain(`updated weather for ada (sha256 ${newSha})`);
    expect(readFileSync(join(home, "users/ada/skills/weather/SKILL.md"), "utf8")).toContain("Paris");

    const removed = await runIronclaw(["skills", "remove", "weather", "--user", "ada"], { env: env() });
    expect(removed.stdout).toContain("removed weather for ada");
    expect(JSON.parse(lock())).toEqual({ version: 1, skills: {} });
  });

  it("refuses an approval that is not the skill's hash, and a user the warden does not know", async () => {
    const wrong = await runIronclawInProcess(
      ["skills", "install", source, "--user", "ada", "--approve", "a".repeat(64)],
      { env: env() },
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`not the approved ${"a".repeat(64)}`);
    const nobody = await runIronclawInProcess(["skills", "list", "--user", "bob"], { env: env() });
    expect(nobody.code).not.toBe(0);
    expect(nobody.stderr).toContain("no user bob on this warden");
  });
});
