import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProtocolPeer, WRITE_CACHE_ENV } from "../../channel/index.js";
import { ensureBrainDir } from "../brain-dir.js";
import { duplexOf } from "../child-cell.js";
import { GUEST_BUNDLE_ENTRY } from "./guest-bundle.js";

export interface WarmUpResult {
  nodeOptions: string;
  ok: boolean;
  detail: string;
}

/**
 * Makes the bundle's code caches (see cell-loader.ts): one agent cell per flag set runs the way a first chat
 * does (Hello, a search, a file listing, a turn whose model call fails), so the cache holds every function
 * those compiled, then exits and writes it. `nodeOptions` are NODE_OPTIONS values exactly as cells get them
 * ("" for none). This side plays a warden without providers: embeddings get placeholder vectors, model calls
 * and fetches an Error. A failed warm-up only costs speed, never correctness.
 */
export async function warmCompileCache(
  bundleDir: string,
  nodeOptions: string[],
  nodePath = process.execPath,
): Promise<WarmUpResult[]> {
  const results: WarmUpResult[] = [];
  for (const options of nodeOptions) {
    const home = await mkdtemp(join(tmpdir(), "ironclaw-warm-up-"));
    try {
      await runWarmUp(bundleDir, options, nodePath, home);
      results.push({ nodeOptions: options, ok: true, detail: "written" });
    } catch (error) {
      results.push({ nodeOptions: options, ok: false, detail: (error as Error).message });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }
  return results;
}

/** The cache files in a bundle directory, for reports. */
export async function listCompileCaches(bundleDir: string): Promise<string[]> {
  return (await readdir(bundleDir).catch(() => [])).filter((f) => f.endsWith(".cache")).sort();
}

async function runWarmUp(bundleDir: string, nodeOptions: string, nodePath: string, home: string) {
  // Provider embeddings, so the run needs no word table: the warm-up answers them itself.
  const brain = await ensureBrainDir(join(home, "user"), {
    embedding: { provider: "warm-up", model: "none" },
  });
  const child = spawn(
    nodePath,
    [join(bundleDir, GUEST_BUNDLE_ENTRY), "--user", "warm-up", "--handler", "agent", "--brain", brain.dir],
    {
      cwd: home,
      stdio: ["pipe", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        IRONCLAW_HOME: home,
        IRONCLAW_LOG: "silent",
        [WRITE_CACHE_ENV]: "1",
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      },
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const peer = new ProtocolPeer(duplexOf(child), { userId: "warm-up", sessionId: "warm-up" });
  let fatal = "";
  peer.onMessage((message) => {
    if (message.type === "Error" && message.fatal) fatal = message.message;
    if (message.type === "EmbedRequest") {
      // The index needs vectors to open the brain at all: any fixed ones do, they are thrown away.
      const vectors = message.texts.map((_, i) => Array.from({ length: 8 }, (_, d) => (i + d) % 3));
      peer.send({ type: "EmbedResult", vectors, reply_to: message.msg_id });
    } else if (message.type === "ModelRequest" || message.type === "FetchRequest") {
      peer.send({
        type: "Error",
        code: "internal",
        message: "no provider during the warm-up",
        reply_to: message.msg_id,
      });
    }
  });
  const timeoutMs = 120_000;
  try {
    const ready = await peer.call({ type: "Hello", providers: [] }, { timeoutMs });
    if (ready.type !== "Ready") throw new Error(`the cell answered Hello with ${ready.type}`);
    await peer.call(
      { type: "QueryRequest", query: { kind: "memory_search", text: "warm up" } },
      { timeoutMs },
    );
    await peer.call({ type: "FileOpRequest", op: "list", path: "." }, { timeoutMs });
    await peer.call({ type: "UserMessage", text: "warm up" }, { timeoutMs });
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${fatal || (error as Error).message}\n${stderr.trim()}`.trim());
  } finally {
    peer.close("warm-up done");
  }
  const code = await exited;
  if (code !== 0) throw new Error(`the warm-up cell exited with ${code}\n${stderr.trim()}`.trim());
}
