import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { OrderSnapshot, RunDetail, RunOrder, Theater } from "../api/command-endpoints.js";
import type { LedgerEvent } from "../api/ledger-follow.js";

type Refusal = {
  status: number;
  code: string;
  message: string;
  issues?: { path: string; message: string }[];
};

/**
 * A small warden for the runs view's tests, on a real socket: the command routes in the { ok, data, error }
 * envelope and the ledger's event stream in its wire format (`id:` position, `event: ledger-event`, `data:` the
 * envelope). Tests change its runs, refuse requests, hold snapshot answers, push events and cut streams.
 */
export async function startCommandServer() {
  const theaters: Theater[] = [];
  const runs = new Map<string, RunDetail>();
  const orders = new Map<string, OrderSnapshot>();
  const events: LedgerEvent[] = [];
  const requests: string[] = [];
  const bodies: { route: string; body: Record<string, string> }[] = [];
  const streams = new Set<ServerResponse>();
  const refusals = new Map<string, Refusal>();
  let held: (() => void)[] | null = null;
  let position = 0;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const ok = (res: ServerResponse, data: unknown, status = 200) =>
    send(res, status, { ok: true, data, error: null });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const route = `${req.method} ${url.pathname}`;
    requests.push(`${route}${url.search}`);
    let text = "";
    for await (const chunk of req) text += chunk;
    const body = text ? (JSON.parse(text) as Record<string, string>) : {};
    bodies.push({ route, body });
    const refusal = refusals.get(route);
    if (refusal) {
      const { status, issues, ...error } = refusal;
      return send(res, status, {
        ok: false,
        data: null,
        error: { ...error, ...(issues ? { details: { issues } } : {}) },
      });
    }
    const id = /^\/api\/(?:runs|orders)\/([^/]+)/.exec(url.pathname)?.[1] ?? "";
    if (route === "GET /api/theaters") return ok(res, theaters);
    if (route === "POST /api/theaters") {
      const theater = {
        theater_id: body.theater_id ?? "",
        repo_path: body.repo_path ?? `/srv/${body.theater_id}`,
      };
      theaters.push(theater);
      return ok(res, { ...theater, created: true }, 201);
    }
    if (route === "GET /api/runs") return ok(res, { runs: [...runs.values()] });
    if (route === "POST /api/command/chat") {
      // Async, as the view asks: the run's id at once; the test then plays the run's progress.
      const run = server.addRun(`run-${runs.size + 1}`, body.theater_hint ?? "", body.message ?? "");
      return ok(res, { run_id: run.run_id, status: run.status });
    }
    if (route === `GET /api/runs/${id}`) {
      const answer = () => (runs.has(id) ? ok(res, runs.get(id)) : send(res, 404, notFound(id)));
      return held ? void held.push(answer) : answer();
    }
    if (route === `POST /api/runs/${id}/cancel`) {
      server.changeRun(id, { status: "CANCELLED" });
      return ok(res, runs.get(id));
    }
    if (route === `GET /api/orders/${id}`)
      return orders.has(id) ? ok(res, orders.get(id)) : send(res, 404, notFound(id));
    if (route === "GET /api/ledger/events" && url.searchParams.get("follow") !== "true") {
      const [runId, type] = [url.searchParams.get("run_id"), url.searchParams.get("type")];
      const found = events.filter((e) => e.run_id === runId && (!type || e.type === type));
      return ok(res, { events: found, head: position, next_after: position });
    }
    if (route === "GET /api/ledger/events") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": ledger event stream\n\n");
      streams.add(res);
      res.on("close", () => streams.delete(res));
      return;
    }
    send(res, 404, notFound(route));
  }

  const http = createServer((req, res) => void handle(req, res));
  http.listen(0, "127.0.0.1");
  await new Promise((resolve) => http.once("listening", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const server = {
    base,
    theaters,
    runs,
    requests,
    /** The bodies sent to a method and path, oldest first. */
    bodiesOf: (route: string) => bodies.filter((b) => b.route === route).map((b) => b.body),
    /** How many requests matched a method and path prefix (query included), e.g. "GET /api/runs/run-1". */
    count: (prefix: string) => requests.filter((r) => r === prefix || r.startsWith(`${prefix}?`)).length,
    streamCount: () => streams.size,
    refuse(route: string, refusal: Refusal) {
      refusals.set(route, refusal);
    },
    accept(route: string) {
      refusals.delete(route);
    },
    addRun(run_id: string, theater_id: string, objective: string, list: RunOrder[] = []): RunDetail {
      const now = new Date().toISOString();
      const run: RunDetail = {
        ...{ run_id, theater_id, objective, status: "OPEN", summary: null, orders: list },
        ...{ created_at: now, updated_at: now, finished_at: null, version: 1, position: ++position },
      };
      runs.set(run_id, run);
      return run;
    },
    changeRun(id: string, change: Partial<RunDetail>) {
      const run = runs.get(id);
      if (run) runs.set(id, { ...run, ...change, position: ++position });
    },
    /** Sets an order's own snapshot (GET /api/orders/{id}). */
    setOrder(snapshot: OrderSnapshot) {
      orders.set(snapshot.order_id, { ...snapshot, position: ++position });
    },
    /** Records events and sends them to every follower (all of them, as the test knows who follows what). */
    push(
      run_id: string,
      type: string,
      count = 1,
      about: { order_id?: string; payload?: object } = {},
    ): number {
      let frames = "";
      for (let i = 0; i < count; i += 1) {
        position += 1;
        const event = {
          ...{ event_id: `e${position}`, type, run_id, order_id: about.order_id ?? null, position },
          payload: about.payload ?? {},
        } as unknown as LedgerEvent;
        events.push(event);
        frames += `id: ${position}\nevent: ledger-event\ndata: ${JSON.stringify({ ok: true, data: event, error: null })}\n\n`;
      }
      for (const stream of streams) stream.write(frames);
      return position;
    },
    /** Cuts every event stream, as a proxy or a restart would. */
    dropStreams() {
      // Ended at the socket, not the response: what was written still arrives, then the stream is cut mid-body.
      for (const stream of streams) stream.socket?.end();
    },
    /** From now on, snapshot answers wait until release(). */
    hold() {
      held = [];
    },
    release() {
      const waiting = held ?? [];
      held = null;
      for (const answer of waiting) answer();
    },
    held: () => held?.length ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
  return server;
}

/** An order's own snapshot, as GET /api/orders/{id} answers it. */
export function order(order_id: string, change: Partial<OrderSnapshot> = {}): OrderSnapshot {
  const now = new Date().toISOString();
  return {
    ...{ order_id, run_id: "run-1", theater_id: "demo", status: "QUEUED", attempt: 0, unit_id: null },
    ...{ worktree_path: null, aar_path: null, artifacts: [], branch: null, worktree_state: null },
    ...{ integration_state: null, commit_sha: null, created_at: now, started_at: null, finished_at: null },
    ...{ updated_at: now, version: 1, position: 1 },
    ...change,
  };
}

const notFound = (what: string) => ({
  ok: false,
  data: null,
  error: { code: "not_found", message: `${what} not found` },
});
