import type { LedgerEvent } from "../../../src/contracts/command/index.js";

export type { LedgerEvent };
export type FollowState = "connecting" | "online" | "offline" | "stopped";

export interface LedgerFollowOptions {
  /** The stream's address without `after`, e.g. `/api/ledger/events?follow=true&run_id=…`. */
  url: string;
  /** Follow from just after this position (a snapshot's `position`), so history is not replayed. */
  after: number;
  onEvent(event: LedgerEvent): void;
  /** Every change of the connection, with a sentence the view can show. */
  onState(state: FollowState, text: string): void;
  fetcher?: typeof fetch;
  /** First retry delay; it doubles per failed attempt up to maxDelayMs (tests pass small values). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export interface LedgerFollow {
  /** On purpose: no reconnect. */
  close(): void;
}

/**
 * Follows the ledger's server-sent events (`id:` position, `event: ledger-event`, `data:` the envelope around one
 * event) over fetch rather than EventSource, so a drop resumes from the last position received with `after=`,
 * retries back off (1 s, 2 s, 4 s… capped) instead of hammering the warden, and a refusal that a retry cannot
 * fix (signed out, forbidden, no such route) stops with the warden's reason.
 */
export function followLedger(options: LedgerFollowOptions): LedgerFollow {
  const fetcher = options.fetcher ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  const minDelay = options.minDelayMs ?? 1000;
  const maxDelay = options.maxDelayMs ?? 30_000;
  let after = options.after;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: AbortController | null = null;
  let closed = false;

  async function connect(): Promise<void> {
    const controller = new AbortController();
    current = controller;
    options.onState("connecting", "Connecting to live updates…");
    try {
      const separator = options.url.includes("?") ? "&" : "?";
      const response = await fetcher(`${options.url}${separator}after=${after}`, {
        credentials: "same-origin",
        headers: { accept: "text/event-stream" },
        signal: controller.signal,
      });
      if (!response.ok || !response.body) await refused(response);
      else {
        failures = 0;
        options.onState("online", "Live");
        await readFrames(response.body, (frame) => {
          if (frame.event === "ledger-event") {
            const envelope = parse(frame.data) as { ok?: boolean; data?: LedgerEvent } | null;
            // The frame's id is the event's position: where a reconnect resumes.
            if (/^\d+$/.test(frame.id)) after = Math.max(after, Number(frame.id));
            if (envelope?.ok && envelope.data) options.onEvent(envelope.data);
          }
        });
      }
    } catch {
      // A network failure or a cut stream: the retry below covers both.
    }
    if (!closed && current === controller) retry();
  }

  async function refused(response: Response): Promise<void> {
    // 408, 429 and 5xx may pass; any other refusal will be the same on the next try.
    if (response.status === 408 || response.status === 429 || response.status >= 500) return;
    const body = parse(await response.text().catch(() => "")) as { error?: { message?: string } } | null;
    closed = true;
    options.onState("stopped", `Live updates stopped: ${body?.error?.message ?? `HTTP ${response.status}`}`);
  }

  function retry(): void {
    const delay = Math.min(maxDelay, minDelay * 2 ** failures) * (0.8 + Math.random() * 0.4);
    failures += 1;
    options.onState("offline", `Live updates lost, retrying in ${Math.max(1, Math.round(delay / 1000))} s`);
    timer = setTimeout(() => void connect(), delay);
  }

  void connect();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      current?.abort();
      current = null;
    },
  };
}

interface Frame {
  event: string;
  id: string;
  data: string;
}

/** Splits a text/event-stream body into frames; comment lines (the heartbeat) are skipped. */
async function readFrames(body: ReadableStream<Uint8Array>, onFrame: (frame: Frame) => void) {
  // The DOM typings refuse TextDecoderStream's BufferSource input for a stream of Uint8Array, which it takes.
  const decoder = new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>;
  const reader = body.pipeThrough(decoder).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, "\n");
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame: Frame = { event: "message", id: "", data: "" };
      const data: string[] = [];
      for (const line of block.split("\n")) {
        const colon = line.indexOf(":");
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") frame.event = text;
        else if (field === "id") frame.id = text;
        else if (field === "data") data.push(text);
      }
      frame.data = data.join("\n");
      if (data.length > 0) onFrame(frame);
      end = buffer.indexOf("\n\n");
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
