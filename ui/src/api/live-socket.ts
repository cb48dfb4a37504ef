import type { WsClientMessage, WsServerMessage } from "./endpoints.js";

export type ConnectionState = "connecting" | "online" | "offline";

export interface LiveSocketOptions {
  onMessage(message: WsServerMessage): void;
  onStatus(state: ConnectionState, text: string): void;
  /** The connection dropped (not closed on purpose); a reconnect follows if `canReconnect` allows it. */
  onDrop(): void;
  /** Asked before each retry: a socket refused for an ended sign-in closes without saying why. */
  canReconnect(): Promise<boolean>;
  url?: string;
  /** Tests pass their own WebSocket class. */
  WebSocketImpl?: typeof WebSocket;
}

export interface LiveSocket {
  open(): void;
  /** On purpose: no reconnect. */
  close(): void;
  /** False when the socket is not open (the caller tells the user; nothing is queued). */
  send(message: WsClientMessage): boolean;
}

const PING_MS = 25_000; // keeps idle proxies from closing the socket
const MAX_DELAY_MS = 30_000;

/** The chat WebSocket at /api/ws (same origin, signed in by the cookie), reconnected with capped, jittered backoff. */
export function createLiveSocket(options: LiveSocketOptions): LiveSocket {
  const Impl = options.WebSocketImpl ?? WebSocket;
  let socket: WebSocket | null = null;
  let retries = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pinger: ReturnType<typeof setInterval> | undefined;

  const url = () =>
    options.url ?? `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/api/ws`;

  function open(): void {
    close();
    const current = new Impl(url());
    socket = current;
    options.onStatus("connecting", "Connecting…");
    current.addEventListener("open", () => {
      retries = 0;
      options.onStatus("online", "Connected");
    });
    current.addEventListener("message", (event) => {
      const message = parse(String(event.data));
      if (message) options.onMessage(message);
    });
    current.addEventListener("close", () => {
      if (socket === current) dropped();
    });
    pinger = setInterval(() => send({ type: "ping" }), PING_MS);
  }

  function dropped(): void {
    socket = null;
    clearInterval(pinger);
    options.onDrop();
    const delay = Math.min(MAX_DELAY_MS, 1000 * 2 ** retries) * (0.8 + Math.random() * 0.4);
    retries += 1;
    options.onStatus("offline", `Offline, retrying in ${Math.round(delay / 1000)} s`);
    timer = setTimeout(async () => {
      if (await options.canReconnect()) open();
    }, delay);
  }

  function close(): void {
    clearTimeout(timer);
    clearInterval(pinger);
    const current = socket;
    socket = null;
    current?.close();
  }

  function send(message: WsClientMessage): boolean {
    if (socket?.readyState !== Impl.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  return { open, close, send };
}

function parse(text: string): WsServerMessage | null {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && "type" in value ? (value as WsServerMessage) : null;
  } catch {
    return null;
  }
}
