// Helpers of the memory tests: temp brains, the built-in embedder on a shared word table, a counting embedder.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { BrainLayout, BuiltinEmbedder, type Embedder } from "../../src/memory/index.js";

/** One word table for every test run on this machine: building it takes seconds, loading it milliseconds. */
export const TEST_DATA_DIR = join(tmpdir(), "ironclaw-test-home");

export function loadTestEmbedder(): Promise<BuiltinEmbedder> {
  return BuiltinEmbedder.load({ dataDir: TEST_DATA_DIR });
}

/** Wraps an embedder to count what is sent to it, and to fail on chosen texts. */
export class CountingEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  readonly dimensions: number;
  texts: string[] = [];
  calls = 0;
  failWhen: ((text: string) => boolean) | undefined;

  constructor(
    private readonly inner: Embedder,
    overrides: { id?: string; model?: string } = {},
  ) {
    this.id = overrides.id ?? inner.id;
    this.model = overrides.model ?? inner.model;
    this.dimensions = inner.dimensions;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    const failing = this.failWhen && texts.find(this.failWhen);
    if (failing !== undefined) throw new Error(`embedder failed on ${JSON.stringify(failing.slice(0, 40))}`);
    this.texts.push(...texts);
    return this.inner.embed(texts);
  }

  reset(): void {
    this.texts = [];
    this.calls = 0;
  }
}

export interface TempBrain {
  dir: string;
  brain: BrainLayout;
  write(path: string, text: string): Promise<void>;
  remove(path: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** A brain in a fresh temp directory holding `files` (brain-relative path → markdown). */
export async function makeTempBrain(files: Record<string, string> = {}): Promise<TempBrain> {
  const dir = await mkdtemp(join(tmpdir(), "ironclaw-brain-"));
  await mkdir(join(dir, "brain", "db"), { recursive: true });
  const root = join(dir, "brain");
  const write = async (path: string, text: string) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  };
  for (const [path, text] of Object.entries(files)) await write(path, text);
  return {
    dir,
    brain: BrainLayout.open(root),
    write,
    remove: (path) => rm(join(root, path), { force: true }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A second connection to a brain database, as another process would open it: tests read stored state through it
 * (not through the store under test) and plant failures in it (a trigger is seen by every connection).
 */
export function openInspector(file: string): Database.Database {
  const db = new Database(file);
  sqliteVec.load(db);
  db.pragma("busy_timeout = 10000");
  return db;
}

/** The single number a `SELECT count(*) AS n …` returns. */
export function countRows(db: Database.Database, sql: string): number {
  return db.prepare<[], { n: number }>(sql).get()?.n ?? Number.NaN;
}

/** Starts a process that swaps a link to `config/` into `d0/flip` of a brain as fast as it can, over and over. */
export function startLinkFlood(root: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      "-e",
      `const fs=require("fs");const d=process.argv[1];let i=0;
       for(;;){try{fs.symlinkSync(d+"/config",d+"/d0/l"+(i%4));fs.renameSync(d+"/d0/l"+(i%4),d+"/d0/flip");}catch{}i++;}`,
      root,
    ],
    { stdio: "ignore" },
  );
}

/** A brain of 200 notes in 10 folders, as a link flood meets it in a real cell. */
export async function floodBrain(): Promise<TempBrain> {
  const files: Record<string, string> = { "config/irowclaw.toml": "" };
  for (let d = 0; d < 10; d++) for (let f = 0; f < 20; f++) files[`d${d}/n${f}.md`] = `note ${f}`;
  return makeTempBrain(files);
}
