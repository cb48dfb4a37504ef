import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { PendingMailSends } from "../api/mail-endpoints.js";
import { createGenerations } from "../shared/generation.js";
import type { NoticeMessage } from "../shared/notice.js";

/** The secret the warden logs in to the user's mail server with. */
export const MAIL_PASSWORD = "MAIL_PASSWORD";

export interface MailState {
  /** Whether mail works for this user, and the sends waiting for them; null until the first answer. */
  outbox: PendingMailSends | null;
  message: NoticeMessage | null;
  loading: boolean;
  /** A confirmation, cancellation or password is on its way: the buttons wait for it. */
  busy: boolean;
}

export type MailAction =
  | { type: "start" }
  | { type: "confirm"; id: string }
  | { type: "cancel"; id: string }
  | { type: "set-password"; value: string };

/**
 * The Mail screen: the mail the user's agent asked to send, each shown as the server holds the draft, leaving
 * only when the user sends it from here; and the user's mail password, which goes to the warden once.
 */
export function createMailController(api: ApiClient) {
  const [state, setState] = createStore<MailState>({
    outbox: null,
    message: null,
    loading: false,
    busy: false,
  });
  const generations = createGenerations();
  const fail = (text: string) => setState("message", { level: "error", text });
  const info = (text: string) => setState("message", { level: "info", text });

  async function load(): Promise<void> {
    const ticket = generations.next("load");
    setState("loading", true);
    const answer = await api.call("GET /api/integrations/mail/sends");
    if (!generations.isCurrent("load", ticket)) return;
    setState("loading", false);
    if (!answer.ok) return fail(`Your mail could not load: ${answer.error.message}`);
    setState("outbox", answer.data);
  }

  /** Runs one step with the buttons held, then reloads: a send may have expired or gone meanwhile. */
  async function step(work: () => Promise<void>): Promise<void> {
    setState("busy", true);
    try {
      await work();
    } finally {
      setState("busy", false);
    }
    await load();
  }

  const subjectOf = (id: string) => state.outbox?.sends.find((s) => s.id === id)?.subject ?? "the mail";

  async function confirm(id: string): Promise<void> {
    const subject = subjectOf(id);
    await step(async () => {
      const answer = await api.call("POST /api/integrations/mail/sends/:id/confirm", { params: { id } });
      if (!answer.ok) return fail(`“${subject}” was not sent: ${answer.error.message}`);
      info(`Sent “${subject}” to ${answer.data.to.join(", ")}.`);
    });
  }

  async function cancel(id: string): Promise<void> {
    const subject = subjectOf(id);
    await step(async () => {
      const answer = await api.call("POST /api/integrations/mail/sends/:id/cancel", { params: { id } });
      if (!answer.ok) return fail(`“${subject}” could not be dropped: ${answer.error.message}`);
      info(`Dropped “${subject}”; nothing was sent. The draft stays in your Drafts.`);
    });
  }

  async function setPassword(value: string): Promise<void> {
    await step(async () => {
      const answer = await api.call("PUT /api/secrets/:name", {
        params: { name: MAIL_PASSWORD },
        body: { value },
      });
      if (!answer.ok) return fail(`Your mail password was not stored: ${answer.error.message}`);
      info(
        "Your mail password is stored with the warden; it is not shown again, and your agent never sees it.",
      );
    });
  }

  async function dispatch(action: MailAction): Promise<void> {
    setState("message", null);
    switch (action.type) {
      case "start":
        return load();
      case "confirm":
        return confirm(action.id);
      case "cancel":
        return cancel(action.id);
      case "set-password":
        return setPassword(action.value);
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

export type MailController = ReturnType<typeof createMailController>;
