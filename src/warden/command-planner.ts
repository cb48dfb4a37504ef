import type { Planner, PlanRequest } from "../command/index.js";
import type { IronclawdConfig } from "../contracts/index.js";
import { ConfigError, IronclawError } from "../core/index.js";
import type { ChatMessage, TokenUsage } from "../providers/index.js";
import type { ModelBudget } from "./budget/index.js";
import { type HostProviders, isRefusal } from "./host-providers.js";

const PLAN_PROMPT = `You are the commanding officer of a software team. Split the user's objective into 1 to 8 orders,
each small enough for one engineer working alone in a git worktree of the theater's repository.
Answer with JSON only, in this form:
{"orders": [{"key": "a1", "type": "code", "objective": "what to do, precisely",
  "depends_on": [], "acceptance_commands": ["npm test"]}]}
key: a short name other orders list in depends_on. type: analyze, implement, fix, refactor, test, research or code.
acceptance_commands: shell commands that must pass before the order's work is merged; [] when none apply.`;

/**
 * The warden's planner (seed 000 §3.2 "Produces 1-N orders"): one call to the host's planning model through the
 * host's own provider, whose key never leaves the warden, admitted and charged under the run's user's caps. Answers the model's text: the CO reads the JSON plan out
 * of it and checks every field before anything reaches the ledger.
 */
export class WardenPlanner implements Planner {
  private readonly provider: string;
  private readonly model: string | undefined;

  constructor(
    private readonly providers: HostProviders,
    config: Pick<IronclawdConfig, "command" | "new_brains">,
    /** The user's spend caps: planning their run is their call, charged like their own cell's. */
    private readonly budget?: ModelBudget,
  ) {
    this.provider = config.command.provider ?? config.new_brains.provider ?? "openrouter";
    this.model = config.command.model ?? config.new_brains.model;
  }

  async plan(input: PlanRequest): Promise<unknown> {
    return this.ask(input, [
      { role: "system", content: PLAN_PROMPT },
      { role: "user", content: `Theater: ${input.theaterId}\nObjective: ${input.objective}` },
    ]);
  }

  private async ask(input: PlanRequest, messages: ChatMessage[]): Promise<string> {
    if (this.model === undefined)
      throw new ConfigError("ironclawd.toml", [
        {
          key: "command.model",
          rule: "is not set, nor [new_brains] model: name the model the CO plans with",
        },
      ]);
    const provider = this.providers.resolve(this.provider, this.model);
    if (isRefusal(provider)) throw new IronclawError("unavailable", `planning: ${provider.refused}`);
    const call = {
      userId: input.userId,
      agent: "command",
      job: input.runId,
      provider: this.provider,
      model: this.model,
      messages,
    };
    const admission = this.budget?.admit(call);
    if (admission && !admission.ok) throw new IronclawError("rate_limited", admission.refusal.message);
    const maxTokens = admission?.maxTokens;
    const started = Date.now();
    let usage: TokenUsage | undefined;
    let reply = "";
    let state: "done" | "error" = "error";
    try {
      const request = { model: this.model, messages, temperature: 0.2, ...(maxTokens ? { maxTokens } : {}) };
      for await (const event of provider.stream(request)) {
        if (event.type === "usage") usage = event.usage;
        if (event.type === "text_delta") reply += event.delta;
        if (event.type === "done") {
          state = "done";
          return event.message.content;
        }
        if (event.type === "error")
          throw new IronclawError("unavailable", `the planning model failed: ${event.error.message}`);
      }
      throw new IronclawError("unavailable", "the planning model's stream ended without an answer");
    } finally {
      if (admission?.ok)
        this.budget?.settle(admission, call, {
          state,
          ...(usage ? { usage } : {}),
          reply: { content: reply, toolCalls: [] },
          accepted: reply !== "" || usage !== undefined,
          ms: Date.now() - started,
        });
    }
  }
}
