import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { PairingCode } from "../api/endpoints.js";
import type { NoticeMessage } from "../shared/notice.js";

export interface MessagingState {
  /** The code last issued, with how to use it on each channel the warden runs; null before one is asked for. */
  pairing: PairingCode | null;
  /** When the code stops working (milliseconds since the epoch). */
  expiresAt: number | null;
  busy: boolean;
  message: NoticeMessage | null;
}

/** Messaging apps: a one-time code that links a Telegram, Slack, Discord or WhatsApp account to this user. */
export function createMessagingController(api: ApiClient, now: () => number = Date.now) {
  const [state, setState] = createStore<MessagingState>({
    pairing: null,
    expiresAt: null,
    busy: false,
    message: null,
  });

  async function issue(): Promise<void> {
    setState({ busy: true, message: null });
    const answer = await api.call("POST /api/channels/pairing-code");
    if (!answer.ok) {
      setState({ busy: false, message: { level: "error", text: `No code: ${answer.error.message}` } });
      return;
    }
    const none = answer.data.channels.length === 0;
    setState({
      busy: false,
      pairing: answer.data,
      expiresAt: now() + answer.data.expires_in_seconds * 1000,
      message: none
        ? {
            level: "info",
            text: "This warden runs no messaging app yet: an admin configures one in ironclawd.toml.",
          }
        : null,
    });
  }

  return { state, issue };
}
