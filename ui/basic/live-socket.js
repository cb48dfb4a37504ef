// The chat WebSocket at /api/ws (same origin, signed in by the cookie), reconnected with capped, jittered
// exponential backoff. Before each retry it asks `canReconnect()`: a socket refused for an expired sign-in
// closes without saying why, so the page checks /api/me instead of retrying forever.

const PING_MS = 25_000; // keeps idle proxies from closing the socket
const MAX_DELAY_MS = 30_000;

export function createLiveSocket({ onMessage, onStatus, onDrop, canReconnect }) {
  let socket = null;
  let retries = 0;
  let timer = 0;
  let pinger = 0;

  function open() {
    close();
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const current = new WebSocket(`${scheme}//${location.host}/api/ws`);
    socket = current;
    onStatus("connecting", "Connecting…");
    current.addEventListener("open", () => {
      retries = 0;
      onStatus("online", "Connected");
    });
    current.addEventListener("message", (event) => onMessage(parseJson(event.data)));
    current.addEventListener("close", () => {
      if (socket === current) dropped();
    });
    pinger = setInterval(() => send({ type: "ping" }), PING_MS);
  }

  function dropped() {
    socket = null;
    clearInterval(pinger);
    onDrop();
    const delay = Math.min(MAX_DELAY_MS, 1000 * 2 ** retries) * (0.8 + Math.random() * 0.4);
    retries += 1;
    onStatus("offline", `Offline, retrying in ${Math.round(delay / 1000)} s`);
    timer = setTimeout(async () => {
      if (await canReconnect()) open();
    }, delay);
  }

  /** Closes on purpose: no reconnect. */
  function close() {
    clearTimeout(timer);
    clearInterval(pinger);
    const current = socket;
    socket = null;
    current?.close();
  }

  /** Sends one message; false when the socket is not open (the caller tells the user). */
  function send(message) {
    if (socket?.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  return { open, close, send };
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
