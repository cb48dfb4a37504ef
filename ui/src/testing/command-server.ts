import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type {
  Escalation,
  OrderSnapshot,
  PolicyState,
  PolicyView,
  RunDetail,
  RunOrder,
  Theater,
} from "../api/command-endpoints.js";
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
  // Oversight and learning: null escalations is a warden without the escalation routes (404).
  const oversight = {
    escalations: null as Escalation[] | null,
    policy: { active_version: null, pinned: false, versions: [] } as PolicyState,
    documents: new Map<number, NonNullable<PolicyView["policy"]>>(),
  };
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
      const [runId, types] = [url.searchParams.get("run_id"), url.searchParams.get("type")?.split(",")];
      const [after, limit] = [
        Number(url.searchParams.get("after") ?? 0),
        Number(url.searchParams.get("limit") ?? 100),
      ];
      const found = events
        .filter((e) => e.run_id === runId && (!types || types.includes(e.type)) && Number(e.position) > after)
        .slice(0, limit);
      const next = found.length === limit ? (found.at(-1)?.position ?? position) : position;
      return ok(res, { events: found, head: position, next_after: next });
    }
    const answer = answerOversight(route, url, body);
    if (answer) return send(res, answer[0], answer[1]);
    if (route === "GET /api/ledger/events") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": ledger event stream\n\n");
      streams.add(res);
      res.on("close", () => streams.delete(res));
      return;
    }
    send(res, 404, notFound(route));
  }

  /** The escalation and learning routes' status and envelope, or null for a route they do not serve. */
  function answerOversight(route: string, url: URL, body: Record<string, unknown>): [number, unknown] | null {
    const data = (d: unknown): [number, unknown] => [200, { ok: true, data: d, error: null }];
    const { escalations, policy, documents } = oversight;
    const ack = /^POST \/api\/escalations\/([^/]+)\/ack$/.exec(route)?.[1];
    if (escalations && route === "GET /api/escalations")
      return data({ escalations: escalations.filter((e) => !e.acked) });
    if (escalations && ack) {
      const found = escalations.find((e) => e.escalation_id === ack);
      if (!found) return [404, notFound(ack)];
      found.acked = { by: "alice", channel: "api", at: new Date().toISOString() };
      return data(found);
    }
    const view = (version = policy.active_version): PolicyView => ({
      ...{ active_version: policy.active_version, pinned: policy.pinned },
      policy: version === null ? null : (documents.get(version) ?? null),
    });
    const activate = (version: number) => {
      policy.active_version = version;
      for (const v of policy.versions) v.active = v.version === version;
    };
    if (route === "GET /api/learn/policy/versions") return data(policy);
    if (route === "GET /api/learn/policy") {
      const version = url.searchParams.get("version");
      return data(view(version ? Number(version) : undefined));
    }
    if (route === "POST /api/learn/policy/pin") policy.pinned = true;
    if (route === "POST /api/learn/policy/unpin") policy.pinned = false;
    if (route === "POST /api/learn/policy/rollback") activate(Number(body.version));
    if (route.startsWith("POST /api/learn/policy/")) return data(view());
    return null;
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
    oversight,
    /** Records a host-level event (no run): a patrol tick, a service's health, an escalation. */
    pushHost(type: string, payload: object, ts = new Date().toISOString()): void {
      position += 1;
      events.push({
        event_id: `e${position}`,
        type,
        run_id: null,
        order_id: null,
        position,
        ts,
        payload,
      } as never);
    },
    /** Adds a learned policy version (routes and diff as given) and makes it active. */
    learn(document: NonNullable<PolicyView["policy"]>): void {
      oversight.documents.set(document.version, document);
      const { routes, diff, created_at, version } = document;
      oversight.policy.versions.push({
        version,
        created_at,
        routes: routes.length,
        changes: diff.changes.length,
        active: true,
      });
      for (const v of oversight.policy.versions) v.active = v.version === version;
      oversight.policy.active_version = version;
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
