import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the server received, for tests to assert on what the client sent. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
  /** What a streamed reply wrote before it ended or the client went away (counted as it is written). */
  sent?: SentCounts;
}

export interface SentCounts {
  events: number;
  /** Characters of `delta.content` written. */
  contentChars: number;
  /** The whole script was written (false: the client closed the stream first). */
  finished: boolean;
}

interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** OpenAI's and OpenRouter's report of the prompt's cached part. */
  prompt_tokens_details?: { cached_tokens: number };
}

/** How a scripted SSE reply ends: properly, cut off (clean end or reset), or never. */
type Ending = "done" | "end" | "destroy" | "stall";

export type Reply =
  | { kind: "status"; status: number; body: string; headers: Record<string, string> }
  /** Nothing until `until` settles, then `then`: a model that holds its answer until the test lets it go. */
  | { kind: "held"; until: Promise<unknown>; then: Reply }
  | {
      kind: "sse";
      /** `data:` payloads; objects are JSON-encoded, strings are sent as they are. */
      events: Array<Record<string, unknown> | string>;
      ending: Ending;
      delayMs: number;
      usage?: WireUsage;
      contentType?: string;
    };

export interface ScriptedCall {
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim, so tests can send broken JSON. */
  arguments: unknown;
  id?: string;
}

export interface StreamShape {
  /** Pause between events, to make slow streams and keep timing-independent tests simple. */
  delayMs?: number;
  usage?: WireUsage;
}

/** Builders for scripted replies. */
export const reply = {
  /** A text answer streamed in `chunks` pieces, then finish_reason stop, usage and [DONE]. */
  text(content: string, shape: StreamShape & { chunks?: number } = {}): Reply {
    const pieces = splitInto(content, shape.chunks ?? 3);
    return sse(
      [
        chunk({ role: "assistant", content: "" }),
        ...pieces.map((p) => chunk({ content: p })),
        chunk({}, "stop"),
      ],
      "done",
      shape,
    );
  },

  /**
   * One assistant turn calling tools. Each call's arguments arrive in `split` pieces; with several calls the
   * pieces interleave by index, as parallel calls do on real servers.
   */
  toolCalls(calls: ScriptedCall[], shape: StreamShape & { split?: number; content?: string } = {}): Reply {
    const events: Array<Record<string, unknown>> = [chunk({ role: "assistant", content: null })];
    if (shape.content) events.push(chunk({ content: shape.content }));
    const split = calls.map((c) =>
      splitInto(
        typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
        shape.split ?? 1,
      ),
    );
    calls.forEach((c, index) => {
      events.push(
        chunk({
          tool_calls: [
            {
              index,
              id: c.id ?? `call_${index}_${c.name}`,
              type: "function",
              function: { name: c.name, arguments: "" },
            },
          ],
        }),
      );
    });
    const rounds = Math.max(...split.map((s) => s.length));
    for (let r = 0; r < rounds; r++) {
      split.forEach((pieces, index) => {
        const piece = pieces[r];
        if (piece !== undefined)
          events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      });
    }
    events.push(chunk({}, "tool_calls"));
    return sse(events, "done", shape);
  },

  /** An HTTP error before any streaming, e.g. `reply.status(429, "slow down", { "retry-after": "1" })`. */
  status(status: number, message = `status ${status}`, headers: Record<string, string> = {}): Reply {
    return {
      kind: "status",
      status,
      body: JSON.stringify({ error: { message, code: status } }),
      headers: { "content-type": "application/json", ...headers },
    };
  },

  /** `then` once `until` settles (a rejection resets the connection): holds one caller until the test releases it. */
  held(until: Promise<unknown>, then: Reply): Reply {
    return { kind: "held", until, then };
  },

  /** Some text, then the response ends cleanly but without finish_reason or [DONE]. */
  truncated(content: string, shape: StreamShape = {}): Reply {
    return sse([chunk({ role: "assistant", content: "" }), chunk({ content })], "end", shape);
  },

  /** Some text, then the connection is reset. */
  reset(content: string, shape: StreamShape = {}): Reply {
    return sse([chunk({ content })], "destroy", shape);
  },

  /** Headers and `content`, then silence until the client gives up (idle timeout or abort). */
  stall(content = "", shape: StreamShape = {}): Reply {
    return sse(content === "" ? [] : [chunk({ content })], "stall", shape);
  },

  /** A stream whose second event is not JSON. */
  malformed(): Reply {
    return sse([chunk({ content: "ok" }), "{not json"], "done", {});
  },

  /** The mid-stream error object OpenRouter sends when an upstream model fails after streaming began. */
  midStreamError(message: string): Reply {
    return sse([chunk({ content: "partial" }), { error: { message, code: 502 } }], "end", {});
  },

  /**
   * A text reply of about `tokens` tokens (four characters each), `perChunk` tokens a chunk, whatever max_tokens
   * the request asked for: a server that ignores the limit. Paced (1 ms a chunk unless told) so a client that
   * stops reading is seen to stop it; usage reports every token of the script.
   */
  overrun(tokens: number, shape: StreamShape & { perChunk?: number } = {}): Reply {
    const perChunk = shape.perChunk ?? 50;
    const piece = "tide".repeat(perChunk);
    const events = [chunk({ role: "assistant", content: "" })];
    for (let left = tokens; left > 0; left -= perChunk)
      events.push(chunk({ content: left >= perChunk ? piece : "tide".repeat(left) }));
    events.push(chunk({}, "stop"));
    return sse(events, "done", { delayMs: 1, ...shape });
  },

  /** Arbitrary data payloads and ending, for anything the builders above do not cover. */
  raw(
    events: Array<Record<string, unknown> | string>,
    ending: Ending = "done",
    shape: StreamShape = {},
  ): Reply {
    return sse(events, ending, shape);
  },
};

export interface ModelServer {
  /** The OpenAI-compatible API root, `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Chat completion requests only, with their parsed bodies. */
  chatRequests(): Array<
    { model: string; messages: Array<Record<string, unknown>>; tools?: unknown[] } & Record<string, unknown>
  >;
  /** Replies for the next chat completion requests, in order. */
  enqueue(...replies: Reply[]): void;
  /** Answers chat requests once the queue is empty (benchmarks, long conversations). */
  respondWith(responder: (body: Record<string, unknown>) => Reply): void;
  pending(): number;
  /** Forgets queued replies, the responder and recorded requests (between tests). */
  reset(): void;
  close(): Promise<void>;
}

/** Starts a scripted OpenAI-compatible server on 127.0.0.1 with a free port. */
export async function startModelServer(): Promise<ModelServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  let responder: ((body: Record<string, unknown>) => Reply) | undefined;
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      const text = Buffer.concat(parts).toString("utf8");
      let body: unknown = text;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        // Kept as text: a test may want to see what the client sent.
      }
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const record: RecordedRequest = { method: req.method ?? "GET", path, headers: req.headers, body };
      requests.push(record);
      route(path, body, res, record);
    });
  });

  function route(path: string, body: unknown, res: ServerResponse, record: RecordedRequest): void {
    if (path.endsWith("/chat/completions")) {
      const next = queue.shift() ?? (responder ? responder(asRecord(body)) : undefined);
      if (!next) {
        send(res, reply.status(500, "model server: no scripted reply left for this request"));
        return;
      }
      send(res, next, asRecord(body), record);
    } else if (path.endsWith("/embeddings")) {
      const input = asRecord(body).input;
      const texts = Array.isArray(input) ? input.map(String) : [String(input ?? "")];
      const data = texts.map((t, index) => ({ object: "embedding", index, embedding: hashVector(t, 8) }));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          data,
          model: asRecord(body).model ?? "test",
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      );
    } else if (path.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "test-model", object: "model" }] }));
    } else {
      send(res, reply.status(404, `no route ${path}`));
    }
  }

  function send(
    res: ServerResponse,
    r: Reply,
    body: Record<string, unknown> = {},
    record?: RecordedRequest,
  ): void {
    if (r.kind === "held") {
      r.until.then(
        () => {
          if (!res.destroyed) send(res, r.then, body, record);
        },
        () => res.destroy(),
      );
      return;
    }
    if (r.kind === "status") {
      res.writeHead(r.status, r.headers);
      res.end(r.body);
      return;
    }
    res.writeHead(200, { "content-type": r.contentType ?? "text/event-stream", "cache-control": "no-cache" });
    const events = [...r.events];
    if (r.ending === "done") {
      const usage = r.usage ?? estimateUsage(body, events);
      events.push({
        id: "chatcmpl-test",
        object: "chat.completion.chunk",
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
      events.push("[DONE]");
    }
    let i = 0;
    const sent: SentCounts = { events: 0, contentChars: 0, finished: false };
    if (record) record.sent = sent;
    const step = (): void => {
      if (res.destroyed) return;
      if (i < events.length) {
        const event = events[i++];
        res.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`);
        sent.events++;
        sent.contentChars += contentOf(event ?? "").length;
        sent.finished = i === events.length;
        if (r.delayMs > 0) schedule(step, r.delayMs);
        else step();
        return;
      }
      // Reset only after the last write reached the socket, so the client sees the partial stream first.
      if (r.ending === "destroy") res.write("", () => res.socket?.destroy());
      else if (r.ending !== "stall") res.end();
    };
    step();
  }

  function schedule(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () =>
      requests
        .filter((r) => r.path.endsWith("/chat/completions"))
        .map((r) => asRecord(r.body) as ReturnType<ModelServer["chatRequests"]>[number]),
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    respondWith: (fn) => {
      responder = fn;
    },
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      responder = undefined;
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function sse(events: Array<Record<string, unknown> | string>, ending: Ending, shape: StreamShape): Reply {
  const r: Reply = { kind: "sse", events, ending, delayMs: shape.delayMs ?? 0 };
  if (shape.usage) r.usage = shape.usage;
  return r;
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

function splitInto(text: string, pieces: number): string[] {
  if (text === "" || pieces <= 1) return [text];
  const size = Math.ceil(text.length / pieces);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// Deterministic stand-ins for token counts: about four characters a token, like real tokenizers on English.
function estimateUsage(
  body: Record<string, unknown>,
  events: Array<Record<string, unknown> | string>,
): WireUsage {
  let completion = 0;
  for (const event of events) {
    if (typeof event === "string") continue;
    const choices = (event.choices ?? []) as Array<{
      delta?: { content?: string | null; tool_calls?: unknown[] };
    }>;
    for (const c of choices) {
      completion += (c.delta?.content ?? "").length;
      if (c.delta?.tool_calls) completion += JSON.stringify(c.delta.tool_calls).length;
    }
  }
  const prompt = JSON.stringify(body.messages ?? []).length;
  return { prompt_tokens: Math.ceil(prompt / 4), completion_tokens: Math.ceil(completion / 4) };
}

function contentOf(event: Record<string, unknown> | string): string {
  if (typeof event === "string") return "";
  const choices = (event.choices ?? []) as Array<{ delta?: { content?: string | null } }>;
  return choices.map((c) => c.delta?.content ?? "").join("");
}

function hashVector(text: string, dims: number): number[] {
  const digest = createHash("sha256").update(text).digest();
  const v = Array.from({ length: dims }, (_, i) => (digest[i] ?? 0) / 255 - 0.5);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
