import { createInterface } from "node:readline";
import { type AgentEvent, AgentRuntime, type TurnResult } from "../../agent/index.js";
import type { ChatMessage } from "../../providers/index.js";
import { type CliIo, println, UsageError } from "../command.js";
import { defineCommand, defineGroup } from "../command-spec.js";
import { hostPageFetcher } from "../host-page-fetcher.js";

const TURN_OPTIONS = [
  { name: "brain", type: "string", required: true, valueName: "dir", description: "the brain directory" },
  {
    name: "agent",
    type: "string",
    valueName: "name",
    description: "an agent profile other than the default_agent",
  },
  {
    name: "workspace",
    type: "string",
    valueName: "dir",
    description: "the bash tool's working directory (default /tmp/workspace)",
  },
  {
    name: "max-steps",
    type: "number",
    integer: true,
    min: 1,
    valueName: "n",
    description: "model calls allowed per turn (default 16)",
  },
] as const;

interface TurnOptions {
  brain: string;
  agent?: string | undefined;
  workspace?: string | undefined;
  "max-steps"?: number | undefined;
}

const run = defineCommand({
  name: "run",
  summary: "one turn; prints one JSON object",
  description: `One turn; prints one JSON object: session_id, agent, provider, model, text, stop_reason, steps,
usage, tool_calls [{ tool, outcome, is_error }], error { code, message } when the turn failed.
Exit code 0 when the model answered, 1 when the turn failed or was cut short.`,
  positionals: [
    { name: "prompt", required: true, variadic: true, description: "what to ask (words are joined)" },
  ],
  options: TURN_OPTIONS,
  async run({ options, args }, io) {
    const prompt = args.prompt.join(" ").trim();
    if (prompt === "") throw new UsageError("missing <prompt>");
    return withRuntime(options, false, io, async (runtime, turn) => {
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once("SIGINT", onSigint);
      try {
        const calls: ToolCallSummary[] = [];
        const result = await runtime.runTurn({
          ...turn,
          prompt,
          signal: controller.signal,
          emit: (e) => {
            if (e.type === "tool_result")
              calls.push({ tool: e.call.name, outcome: e.result.outcome, is_error: e.result.isError });
          },
        });
        println(io.stdout, JSON.stringify(toJson(result, calls)));
        return result.stopReason === "stop" || result.stopReason === "length" ? 0 : 1;
      } finally {
        process.off("SIGINT", onSigint);
      }
    });
  },
});

const chatCommand = defineCommand({
  name: "chat",
  summary: "a terminal chat: each line of input is a turn, the answer streams to stdout",
  description: `A terminal chat: each line of input is a turn, the answer streams to stdout, tool calls are shown
on stderr. /exit or end of input quits; Ctrl-C stops the current answer.`,
  options: TURN_OPTIONS,
  async run({ options }, io) {
    // A chat lives long enough for the brain to change under it (its own file writes, a human editing).
    return withRuntime(options, true, io, (runtime, turn) => chat(runtime, turn, io));
  },
});

export const agentCommand = defineGroup({
  name: "agent",
  summary: "talk to a brain's agent: one turn with JSON output, or a streaming terminal chat",
  subcommands: [run, chatCommand],
});

async function withRuntime(
  options: TurnOptions,
  watchBrain: boolean,
  io: CliIo,
  work: (runtime: AgentRuntime, turn: { agent?: string; maxSteps?: number }) => Promise<number>,
): Promise<number> {
  const maxSteps = options["max-steps"];
  const turn = { ...(options.agent ? { agent: options.agent } : {}), ...(maxSteps ? { maxSteps } : {}) };
  const runtime = await AgentRuntime.open(options.brain, {
    env: io.env,
    watchBrain,
    pageFetcher: hostPageFetcher,
    ...(options.workspace ? { workspace: options.workspace } : {}),
  });
  try {
    return await work(runtime, turn);
  } finally {
    await runtime.close();
  }
}

async function chat(
  runtime: AgentRuntime,
  turn: { agent?: string; maxSteps?: number },
  io: CliIo,
): Promise<number> {
  const tty = (io.stdin as { isTTY?: boolean }).isTTY === true;
  const lines = createInterface({ input: io.stdin, terminal: false });
  let history: ChatMessage[] = [];
  let sessionId: string | undefined;
  let controller: AbortController | undefined;
  const onSigint = () => {
    if (controller && !controller.signal.aborted) controller.abort();
    else lines.close();
  };
  process.on("SIGINT", onSigint);
  const prompt = () => {
    if (tty) io.stderr.write("you> ");
  };
  try {
    prompt();
    for await (const line of lines) {
      const text = line.trim();
      if (text === "/exit" || text === "/quit") break;
      if (text === "") {
        prompt();
        continue;
      }
      controller = new AbortController();
      const result = await runtime.runTurn({
        ...turn,
        prompt: text,
        history,
        signal: controller.signal,
        emit: (event) => show(event, io),
        ...(sessionId ? { sessionId } : {}),
      });
      controller = undefined;
      history = result.messages;
      sessionId = result.sessionId;
      io.stdout.write("\n");
      if (result.error) println(io.stderr, `[${result.error.code}] ${result.error.message}`);
      else if (result.stopReason !== "stop") println(io.stderr, `[stopped: ${result.stopReason}]`);
      prompt();
    }
  } finally {
    process.off("SIGINT", onSigint);
    lines.close();
  }
  return 0;
}

function show(event: AgentEvent, io: CliIo): void {
  if (event.type === "text_delta") io.stdout.write(event.delta);
  else if (event.type === "tool_call")
    println(io.stderr, `\n[tool ${event.call.name}] ${event.call.arguments}`);
  else if (event.type === "tool_result") {
    const first = event.result.content.split("\n")[0] ?? "";
    println(io.stderr, `[${event.call.name} ${event.result.outcome}] ${first.slice(0, 200)}`);
  }
}

interface ToolCallSummary {
  tool: string;
  outcome: string;
  is_error: boolean;
}

function toJson(result: TurnResult, calls: ToolCallSummary[]): Record<string, unknown> {
  return {
    session_id: result.sessionId,
    agent: result.agent,
    provider: result.provider,
    model: result.model,
    text: result.text,
    stop_reason: result.stopReason,
    steps: result.steps,
    usage: result.usage,
    tool_calls: calls,
    ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
  };
}
