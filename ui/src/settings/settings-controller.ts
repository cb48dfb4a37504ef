import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { SettingsProposal } from "../api/settings-endpoints.js";
import { createGenerations } from "../shared/generation.js";
import type { NoticeMessage } from "../shared/notice.js";

export interface SettingsState {
  /** Newest first; null until the first answer. */
  proposals: SettingsProposal[] | null;
  message: NoticeMessage | null;
  /** A step or a secret is on its way: the buttons wait for it. */
  busy: boolean;
}

export type SettingsAction =
  | { type: "start" }
  | { type: "confirm"; id: string }
  | { type: "reject"; id: string }
  | { type: "revert"; id: string }
  | { type: "set-variable"; name: string; value: string };

type Done = Pick<SettingsProposal, "file" | "takes_effect">;

const EFFECT: Record<Done["takes_effect"], string> = {
  restart: "it takes effect when the warden restarts.",
  next_turn: "it takes effect from the agent's next turn.",
  now: "it takes effect at once.",
};

const DONE: Record<"confirm" | "reject" | "revert", (p: Done) => string> = {
  confirm: (p) => `Applied to ${p.file}; ${EFFECT[p.takes_effect]}`,
  reject: (p) => `Rejected; ${p.file} was not changed.`,
  revert: (p) => `Reverted: ${p.file} is as it was before; ${EFFECT[p.takes_effect]}`,
};

/**
 * The Settings screen: changes to ironclawd.toml, agent profiles and spend caps that admins' agents proposed, each with its exact diff, applied
 * only when its proposer confirms it here; an applied one reverted in one step; and the form where a secret a
 * proposal names by variable is pasted, never into the chat.
 */
export function createSettingsController(api: ApiClient) {
  const [state, setState] = createStore<SettingsState>({ proposals: null, message: null, busy: false });
  const generations = createGenerations();
  const fail = (text: string) => setState("message", { level: "error", text });
  const info = (text: string) => setState("message", { level: "info", text });

  async function load(): Promise<void> {
    const ticket = generations.next("load");
    const answer = await api.call("GET /api/settings/proposals");
    if (!generations.isCurrent("load", ticket)) return;
    if (!answer.ok) return fail(`The proposals could not load: ${answer.error.message}`);
    setState("proposals", answer.data.proposals);
  }

  /** Runs one step with the buttons held, then reloads: a proposal may have expired or been decided meanwhile. */
  async function step(work: () => Promise<void>): Promise<void> {
    setState("busy", true);
    try {
      await work();
    } finally {
      setState("busy", false);
    }
    await load();
  }

  async function decide(verb: "confirm" | "reject" | "revert", id: string): Promise<void> {
    await step(async () => {
      const answer = await api.call(`POST /api/settings/proposals/:id/${verb}`, { params: { id } });
      if (!answer.ok) return fail(`Proposal ${id}: ${answer.error.message}`);
      info(`Proposal ${id}: ${DONE[verb](answer.data)}`);
    });
  }

  async function setVariable(name: string, value: string): Promise<void> {
    await step(async () => {
      const answer = await api.call("PUT /api/settings/variables/:name", {
        params: { name },
        body: { value },
      });
      if (!answer.ok) return fail(`${name} was not stored: ${answer.error.message}`);
      info(`${name} is stored with the warden; it is not shown again, and no agent sees it.`);
    });
  }

  async function dispatch(action: SettingsAction): Promise<void> {
    setState("message", null);
    switch (action.type) {
      case "start":
        return load();
      case "confirm":
      case "reject":
      case "revert":
        return decide(action.type, action.id);
      case "set-variable":
        return setVariable(action.name, action.value);
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

export type SettingsController = ReturnType<typeof createSettingsController>;
