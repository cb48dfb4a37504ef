import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../core/index.js";
import { type BrainLayout, initBrain } from "../memory/index.js";
import { allowedTools, loadRuntimeConfig, selectProfile } from "./runtime-config.js";

let dir: string;
let brain: BrainLayout;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "ironclaw-config-"));
  brain = (await initBrain(dir)).brain;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the runtime config", () => {
  it("loads the starter brain: its default agent and every profile", () => {
    const runtime = loadRuntimeConfig(brain);
    expect(runtime.config.default_agent).toBe("assistant");
    expect(selectProfile(runtime)).toMatchObject({ name: "assistant", provider: "openrouter" });
  });

  it("finds profiles by their name and narrows tools to irowclaw.toml's ceiling", () => {
    writeFileSync(
      join(dir, "config/agents/research.toml"),
      'name = "research"\nprovider = "openrouter"\nmodel = "m"\n[tools]\nallow = ["browser", "memory"]\n',
    );
    writeFileSync(
      join(dir, "config/irowclaw.toml"),
      'default_agent = "assistant"\n[tools]\nallow = ["memory", "file"]\n',
    );
    const runtime = loadRuntimeConfig(brain);
    expect(allowedTools(runtime.config, selectProfile(runtime, "research"))).toEqual(["memory"]);
    expect(allowedTools(runtime.config, selectProfile(runtime))).toEqual(["file", "memory"]);
  });

  it("refuses a default agent that has no profile, naming the file and key", () => {
    writeFileSync(join(dir, "config/irowclaw.toml"), 'default_agent = "ghost"\n');
    expect(() => loadRuntimeConfig(brain)).toThrow(ConfigError);
    expect(() => loadRuntimeConfig(brain)).toThrow(/irowclaw\.toml: default_agent: names ghost/);
  });

  it("refuses two profiles with one name", () => {
    writeFileSync(join(dir, "config/agents/copy.toml"), 'name = "assistant"\nprovider = "x"\nmodel = "m"\n');
    expect(() => loadRuntimeConfig(brain)).toThrow(/is already the name of config\/agents\/assistant\.toml/);
  });

  it("reports an invalid profile with its line", () => {
    writeFileSync(join(dir, "config/agents/bad.toml"), 'name = "bad"\nprovider = "x"\nmodel = ""\n');
    expect(() => loadRuntimeConfig(brain)).toThrow(/bad\.toml:3: model: must not be empty/);
  });

  it("asking for an unknown agent lists the known ones", () => {
    expect(() => selectProfile(loadRuntimeConfig(brain), "nobody")).toThrow(/known: assistant/);
  });
});
