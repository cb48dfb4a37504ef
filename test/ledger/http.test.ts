import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  checkValue,
  type ErrorBody,
  errorBodySchema,
  findContract,
  genericEnvelopeSchema,
  healthDataSchema,
} from "../../src/contracts/index.js";
import {
  appendDataSchema,
  createLedgerServer,
  ledgerRoutes,
  orderSnapshotSchema,
  runSnapshotSchema,
} from "../../src/ledger/index.js";
import { ev, fullLifecycle, orderCreated, runCreated, workerBatch } from "./events.js";
import { type LedgerUnderTest, stores } from "./stores.js";

interface Reply {
  status: number;
  body: z.output<typeof genericEnvelopeSchema>;
}

/** The data of a successful reply, checked against the schema the route promises. */
function dataOf<S extends z.ZodType>(reply: Reply, schema: S): z.output<S> {
  expect(reply.body.ok).toBe(true);
  return schema.parse(reply.body.data);
}

function errorOf(reply: Reply): ErrorBody {
  expect(reply.body.ok).toBe(false);
  return errorBodySchema.parse(reply.body.error);
}

const issuePaths = (error: ErrorBody) =>
  z
    .array(z.object({ path: z.string() }))
    .parse(error.details?.issues)
    .map((i) => i.path);

const pageSchema = z.object({
  events: z.array(z.looseObject({ position: z.number(), type: z.string() })),
  head: z.number(),
  next_after: z.number(),
});

const BODY_LIMIT = 64 * 1024;

describe.each(stores)("$name ledger over HTTP", (kind) => {
  let ledger: LedgerUnderTest;
  let server: FastifyInstance;
  let base: string;

  beforeEach(async () => {
    ledger = await kind.open();
    server = await createLedgerServer({ store: ledger.store, bodyLimit: BODY_LIMIT, pollIntervalMs: 20 });
    base = await server.listen({ host: "127.0.0.1", port: 0 });
  });
  afterEach(async () => {
    await server.close();
    await ledger.close();
  });

  /** A real request over a socket; every answer must be the { ok, data, error } envelope. */
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    }
    const response = await fetch(base + path, init);
    // Every answer must be the { ok, data, error } envelope; parse fails the test otherwise.
    return { status: response.status, body: genericEnvelopeSchema.parse(await response.json()) };
  }

  it("appends one event with POST /events and answers 201 with its id, time and position", async () => {
    const reply = await call("POST", "/events", runCreated("r1"));
    expect(reply.status).toBe(201);
    expect(dataOf(reply, appendDataSchema)).toEqual({
      appended: [{ event_id: expect.any(String), ts: expect.any(String), duplicate: false, position: 1 }],
    });
  });

  it("appends a batch with POST /events/batch in order, atomically", async () => {
    const created = await call("POST", "/events/batch", {
      events: [runCreated("r1"), orderCreated("r1", "o1")],
    });
    expect(created.status).toBe(201);
    expect(dataOf(created, appendDataSchema).appended.map((a) => a.position)).toEqual([1, 2]);

    const illegal = [...workerBatch("r1", "o1"), ev("ORDER_STARTED", "r1", "o1", { attempt: 1 })];
    const refused = await call("POST", "/events/batch", { events: illegal });
    expect(refused.status).toBe(409);
    expect(errorOf(refused)).toMatchObject({
      code: "illegal_transition",
      message: expect.stringMatching(/^order o1 is COMPLETED: ORDER_STARTED/),
      details: { order_id: "o1", state: "COMPLETED", event_type: "ORDER_STARTED" },
    });
    expect(dataOf(await call("GET", "/events"), pageSchema).head).toBe(2);
  });

  it("answers a duplicate event_id with 200 and the original position, a conflicting one with 409", async () => {
    const event = { ...runCreated("r1"), event_id: "evt-1" };
    const first = await call("POST", "/events", event);
    const again = await call("POST", "/events", event);
    expect(again.status).toBe(200);
    const [original] = dataOf(first, appendDataSchema).appended;
    expect(dataOf(again, appendDataSchema).appended).toEqual([{ ...original, duplicate: true }]);

    const conflict = await call("POST", "/events", { ...event, payload: { objective: "other" } });
    expect(conflict.status).toBe(409);
    expect(errorOf(conflict)).toMatchObject({
      code: "conflict",
      message: expect.stringContaining("evt-1"),
      details: { event_id: "evt-1", position: 1 },
    });
  });

  it("checks expected stream versions given in the query string", async () => {
    await call("POST", "/events", runCreated("r1"));
    const stale = await call("POST", "/events?expect_run_version=0", orderCreated("r1", "o1"));
    expect(stale.status).toBe(409);
    expect(errorOf(stale)).toMatchObject({
      code: "conflict",
      details: { run_id: "r1", expected: 0, actual: 1 },
    });
    const fresh = await call("POST", "/events/batch?expect_run_version=1&expect_order_version=0", {
      events: [orderCreated("r1", "o1")],
    });
    expect(fresh.status).toBe(201);
    const bad = await call("POST", "/events?expect_run_version=abc", orderCreated("r1", "o2"));
    expect(bad.status).toBe(400);
    expect(errorOf(bad).message).toMatch(/^query\.expect_run_version: must be a whole number/);
  });

  it("answers malformed JSON and a missing body with 400 bad_request", async () => {
    const broken = await call("POST", "/events", '{"type": "RUN_CREATED",');
    expect(broken.status).toBe(400);
    expect(errorOf(broken)).toMatchObject({
      code: "bad_request",
      message: expect.stringMatching(/not valid JSON/),
    });
    const empty = await call("POST", "/events", "");
    expect(empty.status).toBe(400);
    expect(errorOf(empty).message).toMatch(/empty/);
    const missing = await call("POST", "/events");
    expect(missing.status).toBe(400);
    expect(errorOf(missing).message).toMatch(/body is required/);
  });

  it("answers an invalid event with 400 naming each field by its path", async () => {
    const single = await call("POST", "/events", { ...runCreated("r1"), type: "RUN_STARTED" });
    expect(single.status).toBe(400);
    expect(errorOf(single)).toMatchObject({
      code: "validation_failed",
      message: expect.stringMatching(/^\$\.type: must be a known event type/),
    });

    const batch = await call("POST", "/events/batch", {
      events: [runCreated("r1"), { ...ev("ORDER_STARTED", "r1", "o1"), payload: { attempt: "one" } }],
    });
    expect(batch.status).toBe(400);
    expect(issuePaths(errorOf(batch))).toEqual(["$.events[1].payload.attempt"]);
    // A bare array of events is the batch's other accepted form; its paths start at the array.
    const bare = await call("POST", "/events/batch", [
      runCreated("r1"),
      { ...ev("ORDER_STARTED", "r1", "o1"), payload: { attempt: "one" } },
    ]);
    expect(bare.status).toBe(400);
    expect(issuePaths(errorOf(bare))).toEqual(["$[1].payload.attempt"]);
  });

  it("answers a body over the limit with 413 payload_too_large in the envelope", async () => {
    const big = { ...ev("PATROL_TICK", null), payload: { blob: "x".repeat(BODY_LIMIT) } };
    const reply = await call("POST", "/events", big);
    expect(reply.status).toBe(413);
    expect(errorOf(reply).code).toBe("payload_too_large");
    expect(dataOf(await call("GET", "/events"), pageSchema).head).toBe(0);
  });

  it("serves run and order snapshots, and 404 for unknown ids and routes", async () => {
    await call("POST", "/events/batch", { events: fullLifecycle("r1", "o1") });
    const run = await call("GET", "/runs/r1");
    expect(dataOf(run, runSnapshotSchema)).toMatchObject({
      status: "COMPLETE",
      orders: [{ order_id: "o1" }],
    });
    const order = await call("GET", "/orders/o1");
    expect(dataOf(order, orderSnapshotSchema)).toMatchObject({
      status: "COMPLETED",
      aar_path: "aar.json",
      artifacts: [{ path: "outputs/model_output.txt", type: "text/plain" }],
    });
    for (const path of ["/runs/nope", "/orders/nope", "/nowhere"]) {
      const missing = await call("GET", path);
      expect(missing.status).toBe(404);
      expect(errorOf(missing).code).toBe("not_found");
    }
    expect(errorOf(await call("GET", "/runs/nope")).message).toBe("run nope not found");
  });

  it("answers in exactly the shapes `ironclaw validate` checks for seed 000's responses", async () => {
    const answers: Array<[string, Reply]> = [
      ["ledger-append-response", await call("POST", "/events/batch", { events: fullLifecycle("r1", "o1") })],
      ["run-snapshot-response", await call("GET", "/runs/r1")],
      ["order-snapshot-response", await call("GET", "/orders/o1")],
      ["run-snapshot-response", await call("GET", "/runs/nope")],
      ["health-response", await call("GET", "/health")],
    ];
    for (const [kind, reply] of answers) {
      const contract = findContract(kind);
      if (!contract) throw new Error(`no contract ${kind}`);
      const result = checkValue(contract, reply.body);
      expect([kind, result.ok ? [] : result.issues]).toEqual([kind, []]);
    }
  });

  it("reports health", async () => {
    const reply = await call("GET", "/health");
    expect(reply.status).toBe(200);
    expect(dataOf(reply, healthDataSchema)).toMatchObject({ service: "ledger", status: "ok" });
  });

  it("pages through events with GET /events and filters by run, order and type", async () => {
    await call("POST", "/events/batch", { events: [...fullLifecycle("r1", "o1"), runCreated("r2")] });
    const page = dataOf(await call("GET", "/events?after=2&limit=3"), pageSchema);
    expect(page.events.map((e) => e.position)).toEqual([3, 4, 5]);
    expect(page).toMatchObject({ head: 17, next_after: 5 });
    const byType = dataOf(await call("GET", "/events?type=RUN_CREATED,ORDER%20CLAIMED"), pageSchema);
    expect(byType.events.map((e) => e.type)).toEqual(["RUN_CREATED", "ORDER_CLAIMED", "RUN_CREATED"]);
    expect(dataOf(await call("GET", "/events?run_id=r2"), pageSchema).events).toHaveLength(1);
    expect(dataOf(await call("GET", "/events?order_id=o1&limit=1000"), pageSchema).events).toHaveLength(14);
    const bad = await call("GET", "/events?after=-1&colour=red");
    expect(bad.status).toBe(400);
    expect(issuePaths(errorOf(bad))).toEqual(expect.arrayContaining(["query.after", "query"]));
  });

  it("streams events as SSE: the backlog, then live appends, each once and in order", async () => {
    await call("POST", "/events/batch", { events: [runCreated("r1"), orderCreated("r1", "o1")] });
    const controller = new AbortController();
    const response = await fetch(`${base}/events?after=1&follow=true`, { signal: controller.signal });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = readSse(response);

    const first = await frames.next();
    expect(first.value).toMatchObject({ id: "2", event: "ledger-event" });
    expect(JSON.parse(first.value?.data ?? "")).toMatchObject({
      ok: true,
      data: { position: 2 },
      error: null,
    });

    // Live appends, while the stream is open, through the HTTP API and straight into the store.
    await call("POST", "/events/batch", { events: workerBatch("r1", "o1") });
    await ledger.store.append(ev("PATROL_TICK", null));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const frame = await frames.next();
      ids.push(frame.value?.id ?? "");
    }
    expect(ids).toEqual(["3", "4", "5", "6", "7"]);
    controller.abort();
  });

  it("mounts under a prefix in another server, keeping its body parser and envelope to its own routes", async () => {
    const host = Fastify();
    host.post("/echo", async (request) => ({ echoed: request.body }));
    await host.register(ledgerRoutes, { prefix: "/ledger", store: ledger.store });
    const url = await host.listen({ host: "127.0.0.1", port: 0 });
    try {
      const appended = await fetch(`${url}/ledger/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(runCreated("r1")),
      });
      expect(appended.status).toBe(201);
      const missing = await fetch(`${url}/ledger/runs/nope`).then((r) => r.json());
      expect(genericEnvelopeSchema.parse(missing)).toMatchObject({ ok: false, error: { code: "not_found" } });
      // The host's own routes keep fastify's parser and error format.
      const echoed = await fetch(`${url}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{broken",
      });
      expect(echoed.status).toBe(400);
      expect(await echoed.json()).toMatchObject({ statusCode: 400, code: "FST_ERR_CTP_INVALID_JSON_BODY" });
    } finally {
      await host.close();
    }
  });

  it("resumes an SSE stream after Last-Event-ID and ends open streams when the server closes", async () => {
    await call("POST", "/events/batch", { events: [runCreated("r1"), runCreated("r2"), runCreated("r3")] });
    const response = await fetch(`${base}/events`, {
      headers: { accept: "text/event-stream", "last-event-id": "2" },
    });
    const frames = readSse(response);
    expect((await frames.next()).value?.id).toBe("3");
    await server.close();
    expect((await frames.next()).done).toBe(true);
  });
});

interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
}

/** Parses a text/event-stream body frame by frame with a real streaming reader; comment lines are skipped. */
async function* readSse(response: Response): AsyncGenerator<SseFrame> {
  if (!response.body) throw new Error("no body");
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const frame: SseFrame = {};
        for (const line of buffer.slice(0, end).split("\n")) {
          const match = /^(id|event|data): ?(.*)$/.exec(line);
          if (match?.[1] === "id" || match?.[1] === "event" || match?.[1] === "data")
            frame[match[1]] = match[2];
        }
        buffer = buffer.slice(end + 2);
        if (Object.keys(frame).length > 0) yield frame;
        end = buffer.indexOf("\n\n");
      }
    }
  } catch (error) {
    if ((error as Error).name !== "AbortError") throw error;
  } finally {
    reader.releaseLock();
  }
}
