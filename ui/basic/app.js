// IronClaw's fallback chat page (until the Solid app in ui/src replaces it): no build step, no dependencies.
// This file is the controller: signing in, the conversation list, the agent picker and chat turns over the
// WebSocket. conversation-view.js renders; server text is only ever placed as text, never as HTML.
import { api } from "./api.js";
import {
  addMessage,
  addNotice,
  addTool,
  clearConversation,
  scrollToEnd,
  setLoading,
  showEntry,
  showTyping,
  startStreamingMessage,
} from "./conversation-view.js";
import { $, button, el, newId, option, relativeTime } from "./dom.js";
import { createLiveSocket } from "./live-socket.js";

const SESSION_KEY = "ironclaw.session";
const AGENT_KEY = "ironclaw.agent";
const input = $("input");

const state = {
  sessions: [],
  sessionId: localStorage.getItem(SESSION_KEY),
  /** The chat turn on screen: { id, stream, streamed, stopping }, or null. */
  turn: null,
  /** Bumped whenever the open conversation changes, so a slow answer for the previous one is dropped. */
  generation: 0,
};

const socket = createLiveSocket({
  onMessage: handleServerMessage,
  onStatus: setConnection,
  onDrop: () => {
    if (!state.turn) return;
    endTurn();
    addNotice(
      "error",
      "The connection dropped while the agent was answering. It may still finish: reopen this conversation in a moment to see the answer.",
    );
  },
  canReconnect: async () => !signedOut(await api("GET", "/api/me")),
});

// ---- signing in and out ----

async function boot() {
  bindEvents();
  const me = await api("GET", "/api/me");
  if (me.ok) showApp(me.data);
  else showSignIn(me.status === 401 ? "" : me.error.message);
}

/** True when the answer means the sign-in has ended; the sign-in form is then shown. */
function signedOut(answer) {
  if (answer.status !== 401) return false;
  showSignIn("Your sign-in has expired: sign in again.");
  return true;
}

function showSignIn(message) {
  socket.close();
  state.turn = null;
  $("app").hidden = true;
  $("signin").hidden = false;
  $("signin-error").textContent = message;
  $("token").focus();
}

function showApp(me) {
  $("signin").hidden = true;
  $("app").hidden = false;
  $("user").textContent = me.admin ? `${me.user} (admin)` : me.user;
  socket.open();
  void loadSessions();
  void loadAgents();
  if (state.sessionId) void openSession(state.sessionId);
  else newChat();
}

async function signIn(event) {
  event.preventDefault();
  const token = $("token").value.trim();
  const error = $("signin-error");
  error.textContent = token ? "" : "Enter your user token.";
  if (!token) return;
  $("signin-button").disabled = true;
  const answer = await api("POST", "/api/auth/login", { token });
  $("signin-button").disabled = false;
  if (!answer.ok) {
    error.textContent = answer.error.message;
    return;
  }
  $("token").value = "";
  showApp(answer.data);
}

async function signOut() {
  await api("POST", "/api/auth/logout");
  rememberSession(null);
  showSignIn("You are signed out.");
}

// ---- the conversation list ----

function rememberSession(id) {
  state.sessionId = id;
  if (id) localStorage.setItem(SESSION_KEY, id);
  else localStorage.removeItem(SESSION_KEY);
}

async function loadSessions() {
  const answer = await api("GET", "/api/sessions");
  if (signedOut(answer)) return;
  if (!answer.ok) return addNotice("error", `The conversation list could not load: ${answer.error.message}`);
  state.sessions = answer.data;
  renderSessions();
}

function renderSessions() {
  $("sessions").replaceChildren(...state.sessions.map(sessionItem));
  $("sessions-empty").hidden = state.sessions.length > 0;
}

function sessionItem(session) {
  const title = session.title || "Untitled conversation";
  const open = button("session-open", undefined, () => openSession(session.id));
  const time = el("time", "session-time", relativeTime(session.updatedAt));
  time.dateTime = session.updatedAt;
  open.append(el("span", "session-title", title), time);
  const remove = button("session-delete", "×", () => deleteSession(session.id, title));
  remove.setAttribute("aria-label", `Delete “${title}”`);
  remove.title = "Delete this conversation";
  const item = el("li", "session");
  if (session.id === state.sessionId) {
    item.classList.add("current");
    open.setAttribute("aria-current", "true");
  }
  item.append(open, remove);
  return item;
}

async function openSession(id) {
  if (id === state.sessionId && state.turn) return; // already open and answering
  const generation = leaveConversation();
  rememberSession(id);
  renderSessions();
  setLoading(true);
  const answer = await api("GET", `/api/sessions/${encodeURIComponent(id)}`);
  if (generation !== state.generation || signedOut(answer)) return;
  setLoading(false);
  if (!answer.ok) {
    rememberSession(null);
    renderSessions();
    const why = answer.status === 404 ? "it no longer exists" : answer.error.message;
    return addNotice("error", `That conversation could not be opened (${why}). Start a new one.`);
  }
  selectAgent(answer.data.session.agent);
  for (const entry of answer.data.entries) showEntry(entry);
  scrollToEnd();
}

function newChat() {
  leaveConversation();
  rememberSession(null);
  renderSessions();
  input.focus();
}

/** Clears the pane. A running turn goes on at the warden; its answer is there when the conversation is reopened. */
function leaveConversation() {
  state.turn = null;
  updateComposer();
  clearConversation();
  return ++state.generation;
}

async function deleteSession(id, title) {
  if (!window.confirm(`Delete “${title}”? This cannot be undone.`)) return;
  const answer = await api("DELETE", `/api/sessions/${encodeURIComponent(id)}`);
  if (signedOut(answer)) return;
  if (!answer.ok) return addNotice("error", `The conversation could not be deleted: ${answer.error.message}`);
  if (id === state.sessionId) newChat();
  await loadSessions();
}

// ---- the agent picker ----

/** The first call may take a few seconds: it starts the user's cell. */
async function loadAgents() {
  const select = $("agent");
  const answer = await api("GET", "/api/agents");
  select.disabled = false;
  if (!answer.ok || answer.data.agents.length === 0) {
    select.replaceChildren(option("", "Default agent"));
    if (!answer.ok && !signedOut(answer))
      addNotice("error", `Your agents could not load: ${answer.error.message}`);
    return;
  }
  const { agents, default_agent: preferred } = answer.data;
  select.replaceChildren(...agents.map((a) => option(a.name, `${a.name} · ${a.model}`)));
  const saved = localStorage.getItem(AGENT_KEY);
  select.value = agents.some((a) => a.name === saved) ? saved : (preferred ?? agents[0].name);
}

function selectAgent(name) {
  const select = $("agent");
  if (name && [...select.options].some((o) => o.value === name)) select.value = name;
}

function setConnection(kind, text) {
  const status = $("connection");
  status.dataset.state = kind;
  status.textContent = text;
}

// ---- a chat turn ----

function sendMessage() {
  const text = input.value;
  if (state.turn || text.trim() === "") return;
  const id = newId();
  const agent = $("agent").value;
  const sent = socket.send({
    type: "chat",
    id,
    text,
    ...(state.sessionId ? { session_id: state.sessionId } : {}),
    ...(agent ? { agent } : {}),
  });
  if (!sent) {
    addNotice(
      "error",
      "Not connected to the warden, so nothing was sent (your message is still in the box). The page reconnects on its own: try again in a moment.",
    );
    return;
  }
  addMessage("user", text);
  input.value = "";
  autosize();
  state.turn = { id, stream: null, streamed: false, stopping: false };
  showTyping(true);
  updateComposer();
  scrollToEnd();
}

function stopTurn() {
  if (!state.turn || !socket.send({ type: "cancel", id: state.turn.id })) return;
  state.turn.stopping = true;
  updateComposer();
}

/** Server messages, each tagged with its chat's id: session, then delta/tool, then one done; or error. */
function handleServerMessage(message) {
  if (!message || message.type === "pong") return;
  const turn = state.turn?.id === message.id ? state.turn : null;
  if (!turn) {
    if (message.type === "done")
      void loadSessions(); // a turn left running in the background ended
    else if (message.type === "error" && !message.id)
      addNotice("error", `The warden refused a message: ${message.message}`);
    return;
  }
  if (message.type === "session") startedIn(message.sessionId);
  else if (message.type === "delta") appendDelta(turn, message.text);
  else if (message.type === "tool") {
    closeStream(turn);
    addTool(message);
  } else if (message.type === "done") finishTurn(turn, message);
  else if (message.type === "error") {
    endTurn();
    addNotice("error", `The message was not accepted: ${message.message}`);
  }
}

function startedIn(sessionId) {
  if (sessionId === state.sessionId) return;
  rememberSession(sessionId);
  void loadSessions();
}

/** Text between tool calls is one message; a tool row ends it and the next delta starts another. */
function appendDelta(turn, text) {
  turn.stream ??= startStreamingMessage();
  turn.stream.append(text);
  turn.streamed = true;
}

function closeStream(turn) {
  turn.stream?.close();
  turn.stream = null;
}

function finishTurn(turn, done) {
  closeStream(turn);
  if (!turn.streamed && done.text) addMessage("assistant", done.text);
  endTurn();
  if (done.stopReason === "aborted") addNotice("info", "Stopped. Send another message to go on.");
  else if (done.error) addNotice("error", done.error);
  else if (done.stopReason === "length")
    addNotice("info", "The answer was cut off at the model's length limit: ask it to continue.");
  else if (done.stopReason === "max_steps")
    addNotice("info", "The agent stopped at its step limit: send “continue” to let it go on.");
  void loadSessions();
}

function endTurn() {
  if (state.turn) closeStream(state.turn);
  showTyping(false);
  state.turn = null;
  updateComposer();
}

function updateComposer() {
  const send = $("send");
  const turn = state.turn;
  send.textContent = turn ? (turn.stopping ? "Stopping…" : "Stop") : "Send";
  send.classList.toggle("stop", Boolean(turn));
  send.disabled = Boolean(turn?.stopping);
}

function autosize() {
  // A style property set from script is CSSOM, which the CSP allows (style attributes in markup it does not).
  input.style.height = "auto";
  input.style.height = `${Math.min(input.scrollHeight, 240)}px`;
}

function bindEvents() {
  $("signin-form").addEventListener("submit", signIn);
  $("signout").addEventListener("click", signOut);
  $("new-chat").addEventListener("click", newChat);
  $("agent").addEventListener("change", (event) => localStorage.setItem(AGENT_KEY, event.target.value));
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    if (state.turn) stopTurn();
    else sendMessage();
  });
  input.addEventListener("input", autosize);
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    sendMessage();
  });
  setInterval(renderSessions, 60_000); // keeps "5 minutes ago" true
}

void boot();
