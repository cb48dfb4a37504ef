import { createStore, produce } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { LiveSocket, LiveSocketOptions } from "../api/live-socket.js";
import { newId } from "../shared/format.js";
import { createGenerations } from "../shared/generation.js";
import { itemsFromEntries, markStoredReply } from "./chat-items.js";
import type { ChatState } from "./chat-state.js";
import { createTurnReceiver } from "./turn-receiver.js";

export type ChatAction =
  | { type: "start" }
  | { type: "open"; sessionId: string }
  | { type: "new" }
  | { type: "send"; text: string }
  /** Sends a failed turn's message again, in the same conversation (the notice's key). */
  | { type: "retry"; key: string }
  | { type: "stop" }
  | { type: "delete"; sessionId: string }
  | { type: "rename"; sessionId: string; title: string }
  | { type: "pick-agent"; agent: string }
  /** The last turn's reply was stored as conversation entry `seq` (its certificate names it). */
  | { type: "mark-stored"; seq: number };

export interface ChatDeps {
  api: ApiClient;
  openSocket(handlers: Omit<LiveSocketOptions, "url" | "WebSocketImpl">): LiveSocket;
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem">;
  /** How often a conversation whose answer is still being written is looked at again (resume after reload). */
  pollMs?: number;
}

const SESSION_KEY = "ironclaw.session";
const AGENT_KEY = "ironclaw.agent";

/** The chat: conversations, the agent picker, and turns streamed over the WebSocket. */
export function createChatController(deps: ChatDeps) {
  const { api, storage } = deps;
  const [state, setState] = createStore<ChatState>({
    sessions: [],
    sessionId: storage.getItem(SESSION_KEY),
    items: [],
    loading: false,
    agents: [],
    agent: storage.getItem(AGENT_KEY) ?? "",
    turn: null,
    connection: "connecting",
    connectionText: "Connecting…",
    problem: "",
  });
  const generations = createGenerations();
  let keys = 0;
  const key = () => `k${++keys}`;
  const notice = (level: "error" | "info", text: string) =>
    setState("items", (items) => [...items, { kind: "notice", key: key(), level, text }]);
  const remember = (id: string | null) => {
    setState("sessionId", id);
    if (id) storage.setItem(SESSION_KEY, id);
    else storage.removeItem(SESSION_KEY);
  };

  const receive = createTurnReceiver({
    state,
    setState,
    notice,
    remember,
    key,
    reloadSessions: () => void loadSessions(),
  });

  const socket = deps.openSocket({
    onMessage: (message) => receive(message),
    onStatus(connection, connectionText) {
      // The first time the chat can send: what "interactive" means for the page's first load.
      if (connection === "online" && performance.getEntriesByName("ironclaw:chat-ready").length === 0)
        performance.mark("ironclaw:chat-ready");
      setState({ connection, connectionText });
    },
    onDrop() {
      if (!state.turn) return;
      setState("turn", null);
      notice(
        "error",
        "The connection dropped while the agent was answering. It may still finish: reopen this conversation in a moment.",
      );
    },
    canReconnect: async () => (await api.call("GET /api/me")).ok,
  });

  async function loadSessions(): Promise<void> {
    const ticket = generations.next("sessions");
    const answer = await api.call("GET /api/sessions");
    if (!generations.isCurrent("sessions", ticket)) return;
    if (answer.ok) setState("sessions", answer.data);
    else setState("problem", `The conversation list could not load: ${answer.error.message}`);
  }

  async function loadAgents(): Promise<void> {
    const answer = await api.call("GET /api/agents");
    if (!answer.ok) return void setState("problem", `Your agents could not load: ${answer.error.message}`);
    const { agents, default_agent: preferred } = answer.data;
    const saved = state.agent;
    setState({
      agents,
      agent: agents.some((a) => a.name === saved) ? saved : (preferred ?? agents[0]?.name ?? ""),
    });
  }

  async function open(sessionId: string, polls = 0): Promise<void> {
    const ticket = generations.next("conversation");
    if (polls === 0) {
      setState({ turn: null, items: [], loading: true });
      remember(sessionId);
    }
    const answer = await api.call("GET /api/sessions/:id", { params: { id: sessionId } });
    if (!generations.isCurrent("conversation", ticket)) return;
    setState("loading", false);
    if (!answer.ok) {
      remember(null);
      const why = answer.status === 404 ? "it no longer exists" : answer.error.message;
      return notice("error", `That conversation could not be opened (${why}). Start a new one.`);
    }
    const { session, entries } = answer.data;
    setState("items", itemsFromEntries(entries));
    if (session.agent && state.agents.some((a) => a.name === session.agent)) setState("agent", session.agent);
    // Reloaded while the agent was answering: the warden finishes the turn; look again until it is there.
    if (entries.at(-1)?.role === "user" && polls < 120) {
      notice("info", "The agent is still answering this message…");
      setTimeout(() => {
        if (generations.isCurrent("conversation", ticket)) void open(sessionId, polls + 1);
      }, deps.pollMs ?? 1500);
    }
  }

  async function dispatch(action: ChatAction): Promise<boolean> {
    switch (action.type) {
      case "start":
        socket.open();
        void loadSessions();
        void loadAgents();
        if (state.sessionId) void open(state.sessionId);
        return true;
      case "open":
        if (action.sessionId === state.sessionId && state.turn) return true;
        await open(action.sessionId);
        return true;
      case "new":
        generations.next("conversation");
        remember(null);
        setState({ items: [], turn: null, loading: false });
        return true;
      case "send": {
        if (state.turn || action.text.trim() === "") return false;
        const id = newId();
        const sent = socket.send({
          type: "chat",
          id,
          text: action.text,
          ...(state.sessionId ? { session_id: state.sessionId } : {}),
          ...(state.agent ? { agent: state.agent } : {}),
        });
        if (!sent) {
          notice(
            "error",
            "Not connected to the warden, so nothing was sent (your message is still in the box). The page reconnects on its own: try again in a moment.",
          );
          return false;
        }
        performance.mark("ironclaw:send");
        setState({ turn: { id, stopping: false } });
        setState("items", (items) => [...items, { kind: "user", key: key(), text: action.text }]);
        return true;
      }
      case "retry": {
        const failed = state.items.find((i) => i.key === action.key);
        if (failed?.kind !== "notice" || failed.retry === undefined) return false;
        if (!(await dispatch({ type: "send", text: failed.retry }))) return false;
        // Once sent again, the old failure keeps its words but no longer offers a retry.
        setState(
          "items",
          (i) => i.key === action.key,
          produce((i) => {
            if (i.kind === "notice") delete i.retry;
          }),
        );
        return true;
      }
      case "stop":
        if (!state.turn || !socket.send({ type: "cancel", id: state.turn.id })) return false;
        setState("turn", "stopping", true);
        return true;
      case "delete": {
        const answer = await api.call("DELETE /api/sessions/:id", { params: { id: action.sessionId } });
        if (!answer.ok) notice("error", `The conversation could not be deleted: ${answer.error.message}`);
        else if (action.sessionId === state.sessionId) await dispatch({ type: "new" });
        await loadSessions();
        return answer.ok;
      }
      case "rename": {
        const title = action.title.trim();
        if (!title) return false;
        const answer = await api.call("PATCH /api/sessions/:id", {
          params: { id: action.sessionId },
          body: { title },
        });
        if (!answer.ok) notice("error", `The conversation could not be renamed: ${answer.error.message}`);
        await loadSessions();
        return answer.ok;
      }
      case "pick-agent":
        setState("agent", action.agent);
        storage.setItem(AGENT_KEY, action.agent);
        return true;
      case "mark-stored":
        setState(
          "items",
          produce((items) => markStoredReply(items, action.seq)),
        );
        return true;
    }
  }

  return {
    state,
    dispatch,
    dispose() {
      generations.invalidateAll();
      socket.close();
    },
  };
}

export type ChatController = ReturnType<typeof createChatController>;
