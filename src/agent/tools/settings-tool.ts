import { settingsArgsSchemas } from "../../contracts/index.js";
import type { IntegrationAccess } from "./integration-client.js";
import { type AgentTool, defineTool, failed, ok } from "./tool-definition.js";

// Configuration by conversation (seed 003 §16.5): an admin asks in the chat ("connect my Slack workspace", "use a
// cheaper model for the research agent", "cap Bob at $5 a day") and the agent proposes the exact change to
// ironclawd.toml, a user's agent profile or a user's spend caps. The warden checks it and shows the person the diff; the
// file is written only when the person confirms it outside the chat's reach. A secret is never a value here.

const EFFECT = {
  restart:
    "The warden reads this file when it starts: once confirmed, the change takes effect at its next restart.",
  next_turn: "Once confirmed, the change takes effect from the agent's next turn.",
  now: "Once confirmed, the change takes effect at once.",
} as const;

/** The settings tool, granted by the allow-list entry `settings` and offered only to an admin's agent. */
export function createSettingsTool(access: IntegrationAccess): AgentTool {
  return defineTool({
    name: "settings_propose",
    kind: "settings",
    description:
      "Propose a change to the IronClaw warden's settings when an admin asks for one. target says what: " +
      'ironclawd.toml, the warden\'s settings file (the default: "connect my Slack workspace", "listen on port ' +
      "8080\"; keys like integrations.slack.enabled or server.port); profile:<user>/<agent>, that user's agent " +
      'profile ("use a cheaper model for the research agent": model = "openai/gpt-4o-mini"; keys like model, ' +
      'provider, retrieval.top_k); or budget:<user>, that user\'s spend caps in US dollars ("cap Bob at $5 a day": ' +
      "daily_usd = 5; monthly_usd; budget:<user>/<agent> for one agent). Each change is a key and its new value " +
      "(null removes the key, or the cap). Nothing changes until " +
      "the person confirms the proposal in the IronClaw UI (Settings) or with /confirm <id> in their paired chat; " +
      "tell them so and show them the diff. Never put a secret (token, password, key) in a value, and never ask " +
      "for one in the chat: set the key's *_env twin to a variable name (like SLACK_BOT_TOKEN) and tell the person " +
      "to paste the value into the warden's form on the Settings screen.",
    parameters: settingsArgsSchemas.propose,
    async execute(args, { signal }) {
      const answer = await access.call({ integration: "settings", action: "propose", args }, { signal });
      if (!answer.ok)
        return failed(`settings propose was refused (${answer.error.code}): ${answer.error.message}`, {
          code: answer.error.code,
        });
      const data = answer.data as {
        proposal_id?: string;
        file?: string;
        diff?: string;
        takes_effect?: keyof typeof EFFECT;
        secrets?: Array<{ name: string; set: boolean }>;
        expires_at?: string;
      };
      const missing = (data.secrets ?? []).filter((s) => !s.set).map((s) => s.name);
      const lines = [
        `Proposal ${data.proposal_id} is waiting for the person's confirmation; nothing has changed yet.`,
        `The change to ${data.file}:`,
        data.diff ?? "",
        EFFECT[data.takes_effect ?? "restart"],
        `The person confirms it in the IronClaw UI (Settings) or sends /confirm ${data.proposal_id} in their paired ` +
          `chat, before ${data.expires_at}; /reject drops it, and /revert undoes it once applied.`,
      ];
      if (missing.length > 0)
        lines.push(
          `It needs ${missing.join(", ")}: ask the person to paste the value into the form on the Settings screen ` +
            "of the IronClaw UI, never into this chat.",
        );
      return ok(lines.join("\n"), { proposal_id: data.proposal_id ?? "" });
    },
  });
}
