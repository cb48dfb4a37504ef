import { hrefOf } from "../shared/route.js";

/** How the warden names the Soul guard screen in a halted agent's refusal (for API and chat-app users too). */
const SCREEN_MENTION = /\s*\(\/ui\/#\/soul\)/;

/**
 * A halted agent's refusal, as the chat shows it: the sentence without the screen's address, and a link to
 * the Soul guard screen in its place. Undefined for any other notice.
 */
export function haltedNotice(text: string): { text: string; href: string } | undefined {
  if (!/halted/.test(text) || !SCREEN_MENTION.test(text)) return undefined;
  return { text: text.replace(SCREEN_MENTION, ""), href: hrefOf("soul") };
}
