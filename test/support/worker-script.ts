import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildWordTableFile, wordTableFile } from "../../src/memory/index.js";
import { runIronclawInProcess } from "../cli/run-cli.js";
import { type Reply, reply } from "./model-server.js";
import { cellsSettingForServe } from "./serve-process.js";

/** An order of a scripted plan: order `key` writes notes/<key>.md, which its acceptance command checks. */
export interface NoteOrder {
  key: string;
  depends_on?: string[];
}

/** The planner's answer: one order per note, each gated on its note (and its dependencies' notes) existing. */
export function notesPlan(orders: NoteOrder[]): string {
  return JSON.stringify({
    orders: orders.map((o) => ({
      key: o.key,
      type: "implement",
      objective: `Write notes/${o.key}.md`,
      ...(o.depends_on ? { depends_on: o.depends_on } : {}),
      acceptance_commands: [
        [o.key, ...(o.depends_on ?? [])].map((k) => `test -s notes/${k}.md`).join(" && "),
      ],
    })),
  });
}

type Message = { role: string; content?: unknown };

/** Who a chat request is from: the planner, an order's agent (with its order id and note), or neither. */
export type Asker =
  | { kind: "planner" }
  | { kind: "order"; orderId: string; file: string; toolAnswered: boolean };

export function askerOf(body: Record<string, unknown>): Asker | undefined {
  const messages = (body.messages ?? []) as Message[];
  const text = JSON.stringify(messages);
  if (text.includes("commanding officer")) return { kind: "planner" };
  const orderId = /jarvis-order_([0-9A-Za-z]+)/.exec(text)?.[1];
  if (!orderId) return undefined;
  const file = /Write (notes\/[a-z0-9]+\.md)/.exec(text)?.[1] ?? "notes/unknown.md";
  return { kind: "order", orderId, file, toolAnswered: messages.some((m) => m.role === "tool") };
}

/** An order's agent doing its order: it writes the note, then reports with a seed-001 completion block. */
export function orderTurn(asker: Extract<Asker, { kind: "order" }>): Reply {
  const { orderId, file } = asker;
  if (!asker.toolAnswered)
    return reply.toolCalls([
      { name: "file", arguments: { action: "write", path: `work/${file}`, content: `# ${file}\n` } },
    ]);
  const fields = {
    run_id: orderId,
    branch: `jarvis-order_${orderId}`,
    commit_sha: "abc1234",
    files_changed: [file],
    test_result: `test -s ${file} passed`,
    risk: "low - one new note",
    pr_skipped_reason: "the host integrates the worktree",
  };
  return reply.text(`Wrote ${file}.\n<completion>\n${JSON.stringify(fields)}\n</completion>`);
}

/**
 * An IRONCLAW_HOME for command from the CLI: the scripted model as the host's only provider (its embeddings too),
 * bwrap cells where this host runs them with the host's word table already built, `[command]` lines as given,
 * user alice and her theater demo. `env` is what every `ironclaw` of the test runs with.
 */
export async function setUpCommandHome(
  env: { IRONCLAW_HOME: string } & NodeJS.ProcessEnv,
  modelUrl: string,
  commandLines: string,
): Promise<void> {
  const cli = async (...args: string[]) => {
    const result = await runIronclawInProcess(args, { env });
    if (result.code !== 0) throw new Error(`ironclaw ${args.join(" ")}: ${result.stderr}`);
  };
  await cli("theater", "list");
  writeFileSync(
    join(env.IRONCLAW_HOME, "ironclawd.toml"),
    `[providers.local]\nbase_url = "${modelUrl}"\n\n[new_brains]\nprovider = "local"\nmodel = "test-model"\n` +
      `embedding_provider = "local"\nembedding_model = "test-embed"\n\n[command]\n${commandLines}\n` +
      (await cellsSettingForServe()),
  );
  // The word table bwrap cells bind, converted once here rather than by each process's first cell at once.
  await buildWordTableFile(wordTableFile(env.IRONCLAW_HOME));
  await cli("user", "add", "alice");
  await cli("theater", "add", "demo", "--user", "alice");
}
