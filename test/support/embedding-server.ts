// A real OpenAI-compatible /v1/embeddings server on 127.0.0.1 for tests: scripted failures, recorded requests.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedFailure {
  status: number;
  body?: string;
  retryAfter?: string;
}

export interface RecordedRequest {
  model: string;
  inputs: string[];
  authorization: string | undefined;
}

export interface EmbeddingTestServer {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Responses to give, in order, before answering normally again. */
  failures: ScriptedFailure[];
  /** Replaces the normal answer (e.g. a malformed body); cleared after one use. */
  nextBody: string | undefined;
  close(): Promise<void>;
}

/**
 * Vectors are hashed bags of words, deliberately not unit length (clients must normalise): equal texts get
 * equal vectors, texts sharing words get similar ones.
 */
export function hashedVector(text: string, dims: number): number[] {
  const out = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? ["∅"]) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    out[(h >>> 0) % dims] = (out[(h >>> 0) % dims] as number) + 3;
  }
  return out;
}

export async function startEmbeddingServer(
  options: { dims?: number; apiKey?: string } = {},
): Promise<EmbeddingTestServer> {
  const dims = options.dims ?? 32;
  const state: EmbeddingTestServer = {
    baseUrl: "",
    requests: [],
    failures: [],
    nextBody: undefined,
    close: async () => {},
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(body);
    };
    if (req.method !== "POST" || req.url !== "/v1/embeddings")
      return send(404, '{"error":{"message":"no route"}}');
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return send(401, '{"error":{"message":"invalid api key"}}');
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model: string; input: string[] };
    state.requests.push({ model: body.model, inputs: body.input, authorization: req.headers.authorization });
    const failure = state.failures.shift();
    if (failure) {
      return send(failure.status, failure.body ?? '{"error":{"message":"scripted failure"}}', {
        ...(failure.retryAfter ? { "retry-after": failure.retryAfter } : {}),
      });
    }
    if (state.nextBody !== undefined) {
      const text = state.nextBody;
      state.nextBody = undefined;
      return send(200, text);
    }
    // Reversed order on purpose: clients must sort by `index`.
    const data = body.input.map((text, index) => ({
      object: "embedding",
      index,
      embedding: hashedVector(text, dims),
    }));
    send(200, JSON.stringify({ object: "list", model: body.model, data: data.reverse() }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `http://127.0.0.1:${port}/v1`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
