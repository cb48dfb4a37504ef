import { ConflictError, NotFoundError } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import { type ChannelButton, type ChannelCommand, channelKey } from "../channels/channel.js";
import type { SettingsDesk, SettingsProposalView } from "./settings-desk.js";

type Step = "confirm" | "reject" | "revert";

/** When an applied or reverted change holds, as a sentence. */
export function effectSentence(p: Pick<SettingsProposalView, "takes_effect">): string {
  switch (p.takes_effect) {
    case "restart":
      return "It takes effect when the warden restarts.";
    case "next_turn":
      return "It takes effect from the agent's next turn.";
    case "now":
      return "It takes effect at once.";
  }
}

const DONE: Record<Step, (p: SettingsProposalView) => string> = {
  confirm: (p) =>
    `Applied proposal ${p.id} to ${p.file}. ${effectSentence(p)} Send /revert ${p.id} to undo it.`,
  reject: (p) => `Rejected proposal ${p.id}; ${p.file} was not changed.`,
  revert: (p) => `Reverted proposal ${p.id}: ${p.file} is as it was before. ${effectSentence(p)}`,
};

/**
 * `/confirm <id>`, `/reject <id>` and `/revert <id>` in a paired chat (typed, or sent by the message's buttons):
 * the step is taken as the chat's user, so a proposal is confirmed only from its proposer's own chats.
 */
export function settingsCommands(
  desk: Pick<SettingsDesk, Step>,
  isAdmin: (userId: string) => boolean,
): Record<Step, ChannelCommand> {
  const command =
    (step: Step): ChannelCommand =>
    async (link, arg) => {
      if (arg === "") return `Send /${step} <id>: every proposal message names its id.`;
      try {
        const proposal = await desk[step](arg, {
          userId: link.userId,
          admin: isAdmin(link.userId),
          via: channelKey(link.kind, link.bot),
        });
        return DONE[step](proposal);
      } catch (error) {
        if (error instanceof NotFoundError) return `There is no settings proposal ${arg}.`;
        if (error instanceof ConflictError || error instanceof HttpError)
          return `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`.replace(/\.\.$/, ".");
        throw error;
      }
    };
  return { confirm: command("confirm"), reject: command("reject"), revert: command("revert") };
}

/** What the proposer's paired chats get: the summary, the diff, what it needs, and the buttons. */
export function proposalNotice(
  p: SettingsProposalView,
  screenUrl: string,
): { text: string; buttons: ChannelButton[] } {
  const lines = [
    `Your agent proposes a change to ${p.file} (proposal ${p.id}): ${p.summary}`,
    "",
    p.diff,
    "",
    `${effectSentence(p)} Nothing changes until you confirm.`,
  ];
  const missing = p.secrets.filter((s) => !s.set).map((s) => s.name);
  if (missing.length > 0)
    lines.push(
      `It needs ${missing.join(", ")}: paste the value into the form at ${screenUrl}, never into a chat.`,
    );
  lines.push(`Send /confirm ${p.id} to apply it or /reject ${p.id} to drop it (before ${p.expires_at}).`);
  return {
    text: lines.join("\n"),
    buttons: [
      { text: "Confirm", data: `confirm:${p.id}` },
      { text: "Reject", data: `reject:${p.id}` },
    ],
  };
}
