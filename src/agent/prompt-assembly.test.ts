import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BrainLayout, initBrain } from "../memory/index.js";
import {
  assembleSystemPrompt,
  MAX_PROMPT_FILE_BYTES,
  type RecalledPassage,
  readPromptFiles,
} from "./prompt-assembly.js";

let dir: string;
let brain: BrainLayout;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "ironclaw-prompt-"));
  brain = (await initBrain(dir)).brain;
  writeFileSync(join(dir, "instructions/zz-style.md"), "# Style\n\nShort answers.\n");
  writeFileSync(join(dir, "instructions/research.md"), "# Research\n\nCite sources.\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const hit = (path: string, headings: string[], text: string): RecalledPassage => ({
  path,
  headings,
  startLine: 3,
  endLine: 5,
  text,
});

describe("the system prompt", () => {
  it("is soul, identity, instructions in name order, recalled memory, then the session facts", async () => {
    const profile = { name: "assistant", provider: "local", model: "m" };
    const files = await readPromptFiles(brain, profile);
    const prompt = assembleSystemPrompt({
      agent: "assistant",
      ...files,
      recalled: [hit("memory.md", ["Memory", "Tea"], "Genmaicha is the favourite.")],
      tools: ["file", "memory"],
      now: new Date("2025-03-03T07:00:00Z"),
    });
    const order = [
      "# Soul",
      "# Identity",
      "# Instructions",
      "# General instructions",
      "# Research",
      "# Style",
    ]
      .concat([
        "# Recalled memory",
        "[1] memory.md › Memory › Tea (lines 3-5), cite as [memory.md#Tea]",
        "Genmaicha",
        "# Memory\n\nYour memory tool",
        "# Session",
      ])
      .map((marker) => prompt.indexOf(marker));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(prompt).toContain("Current time (UTC): 2025-03-03T07:00:00.000Z\nTools: file, memory");
  });

  it("uses a profile's persona files instead and does not repeat them as instructions", async () => {
    const profile = { name: "r", provider: "local", model: "m", persona_files: ["instructions/research.md"] };
    const files = await readPromptFiles(brain, profile);
    expect(files.persona.map((f) => f.path)).toEqual(["instructions/research.md"]);
    expect(files.instructions.map((f) => f.path)).toEqual([
      "instructions/general.md",
      "instructions/zz-style.md",
    ]);
  });

  it("never brings a file a prompt file links to outside the brain into the prompt; it reads as a refusal instead", async () => {
    const outside = mkdtempSync(join(tmpdir(), "ironclaw-outside-"));
    try {
      writeFileSync(join(outside, "secret.txt"), "RUNTIME-ONLY-SECRET\n");
      unlinkSync(join(dir, "identity.md"));
      symlinkSync(join(outside, "secret.txt"), join(dir, "identity.md"));
      symlinkSync(join(outside, "secret.txt"), join(dir, "instructions/leak.md"));
      const files = await readPromptFiles(brain, { name: "assistant", provider: "local", model: "m" });
      const all = [...files.persona, ...files.instructions];
      expect(JSON.stringify(all)).not.toContain("RUNTIME-ONLY-SECRET");
      expect(all.find((f) => f.path === "identity.md")?.text).toMatch(
        /^\[identity\.md is not read: .*outside/,
      );
      expect(all.find((f) => f.path === "instructions/leak.md")?.text).toMatch(/is not read/);
      // A link that stays inside the brain is read as the file it names.
      unlinkSync(join(dir, "identity.md"));
      symlinkSync("instructions/research.md", join(dir, "identity.md"));
      const inside = await readPromptFiles(brain, { name: "assistant", provider: "local", model: "m" });
      expect(inside.persona.find((f) => f.path === "identity.md")?.text).toContain("Cite sources.");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("leaves out the recalled-memory section when nothing was recalled and skips missing files", async () => {
    rmSync(join(dir, "identity.md"));
    const files = await readPromptFiles(brain, { name: "a", provider: "p", model: "m" });
    const prompt = assembleSystemPrompt({ agent: "a", ...files, recalled: [], tools: [], now: new Date(0) });
    expect(prompt).not.toContain("# Recalled memory");
    expect(prompt).not.toContain("# Identity");
    expect(prompt).toContain("Tools: none");
  });

  it("gives the model at most 64 KiB of a persona or instruction file, and says the rest was left out", () => {
    const huge = `# Soul\n\n${"I keep notes. ".repeat(800_000)}The end.`;
    const prompt = assembleSystemPrompt({
      agent: "assistant",
      persona: [{ path: "soul.md", text: huge }],
      instructions: [{ path: "instructions/log.md", text: "x".repeat(200_000) }],
      recalled: [],
      tools: [],
      now: new Date("2026-03-01T12:00:00Z"),
    });
    expect(Buffer.byteLength(prompt)).toBeLessThan(2 * MAX_PROMPT_FILE_BYTES + 1024);
    expect(prompt).toContain(
      `[soul.md is ${Buffer.byteLength(huge)} bytes; only its first 65536 are given here]`,
    );
    expect(prompt).toContain("[instructions/log.md is 200000 bytes;");
    expect(prompt).toContain("Agent: assistant");
  });
});
