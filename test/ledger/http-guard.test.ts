import { request } from "node:http";
import { networkInterfaces } from "node:os";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { genericEnvelopeSchema } from "../../src/contracts/index.js";
import { createLedgerServer, type LedgerAuthenticator, MAX_JSON_DEPTH } from "../../src/ledger/index.js";
import { ev, runCreated } from "./events.js";
import { type LedgerUnderTest, stores } from "./stores.js";

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: ReturnType<typeof genericEnvelopeSchema.parse>;
}

/**
 * A raw HTTP request, so the test sets exactly the headers a browser would (Origin, Sec-Fetch-Site, a Host
 * of the attacker's name, no content-type at all), which fetch would add or normalise.
 */
function send(
  url: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<Sent> {
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method,
        headers: {
          ...(options.body === undefined
            ? {}
            : { "content-length": String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = genericEnvelopeSchema.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const json = { "content-type": "application/json" };
const event = JSON.stringify(runCreated("r1"));

/** An event whose payload is {"a":{"a":…"leaf"}} `depth` objects deep, built as text: no stack spent here. */
function nestedEvent(depth: number): string {
  const payload = `${'{"a":'.repeat(depth - 1)}{"a":"leaf"}${"}".repeat(depth - 1)}`;
  return JSON.stringify(ev("PATROL_TICK", null)).replace('"payload":{}', `"payload":${payload}`);
}

const [sqlite] = stores;
if (!sqlite) throw new Error("no ledger store to test");

describe("the ledger over HTTP refuses what a web page or a stranger could send", () => {
  let ledger: LedgerUnderTest;
  let server: FastifyInstance | undefined;
  beforeEach(async () => {
    ledger = await sqlite.open();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await ledger.close();
  });

  async function serve(authenticate?: LedgerAuthenticator, host = "127.0.0.1"): Promise<string> {
    server = await createLedgerServer({ store: ledger.store, ...(authenticate ? { authenticate } : {}) });
    return server.listen({ host, port: 0 });
  }
  const head = async () => ledger.store.head();

  it("refuses a text/plain, form or untyped body with 415, and appends the same event sent as JSON", async () => {
    const url = await serve();
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const refused = await send(url, "POST", "/events", { headers: { "content-type": type }, body: event });
      expect([type, refused.status, refused.body.error?.code]).toEqual([type, 415, "unsupported_media_type"]);
      expect(refused.body.error?.message).toBe(`content-type must be application/json (got ${type})`);
    }
    const untyped = await send(url, "POST", "/events/batch", { body: JSON.stringify({ events: [] }) });
    expect(untyped.status).toBe(415);
    expect(untyped.body.error?.message).toBe("content-type must be application/json (got none)");
    expect(await head()).toBe(0);
    // Positive control: the very same bytes are appended when they say they are JSON.
    const typed = { "content-type": "application/json; charset=utf-8" };
    expect((await send(url, "POST", "/events", { headers: typed, body: event })).status).toBe(201);
    expect(await head()).toBe(1);
  });

  it("refuses requests from another origin by Origin and Sec-Fetch-Site with 403", async () => {
    const url = await serve();
    const refusals: Array<Record<string, string>> = [
      { origin: "https://evil.example" },
      { origin: "null" },
      { origin: url.replace(/:(\d+)$/, (_m, port: string) => `:${Number(port) + 1}`) },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const headers of refusals) {
      const refused = await send(url, "POST", "/events", { headers: { ...json, ...headers }, body: event });
      expect([headers, refused.status, refused.body.error?.code]).toEqual([headers, 403, "forbidden"]);
      const read = await send(url, "GET", "/events", { headers });
      expect([headers, read.status]).toEqual([headers, 403]);
    }
    expect(await head()).toBe(0);
    // A page served by the ledger's own origin, and a URL typed in the address bar, are the ledger's own.
    const own = { ...json, origin: url, "sec-fetch-site": "same-origin" };
    expect((await send(url, "POST", "/events", { headers: own, body: event })).status).toBe(201);
    expect((await send(url, "GET", "/health", { headers: { "sec-fetch-site": "none" } })).status).toBe(200);
  });

  it("without tokens answers only requests naming a loopback host, so a DNS-rebinding page is refused", async () => {
    const url = await serve();
    const port = new URL(url).port;
    // The page at evil.example rebinds its name to 127.0.0.1: same origin to the browser, wrong Host to us.
    const rebinding = { ...json, host: `evil.example:${port}`, origin: `http://evil.example:${port}` };
    const refused = await send(url, "POST", "/events", { headers: rebinding, body: event });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toMatch(
      /^this ledger has no authentication and answers only requests for a loopback host/,
    );
    for (const [i, host] of [`localhost:${port}`, `127.0.0.1:${port}`].entries()) {
      const body = JSON.stringify(runCreated(`r${i}`));
      const accepted = await send(url, "POST", "/events", { headers: { ...json, host }, body });
      expect([host, accepted.status]).toEqual([host, 201]);
    }
    expect(await head()).toBe(2);
  });

  it("without tokens refuses a connection that reaches it on a network address", async () => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((a) => a?.family === "IPv4" && !a.internal)?.address;
    if (!address) throw new Error("this test needs a non-loopback IPv4 address on this machine");
    const url = await serve(undefined, "0.0.0.0");
    const port = new URL(url).port;
    const remote = await send(`http://${address}:${port}`, "POST", "/events", { headers: json, body: event });
    expect(remote.status).toBe(403);
    expect(remote.body.error?.message).toMatch(/answers loopback connections only/);
    // Positive control: the same server, reached over loopback, appends.
    const local = await send(`http://127.0.0.1:${port}`, "POST", "/events", { headers: json, body: event });
    expect(local.status).toBe(201);
    expect(await head()).toBe(1);
  });

  it("with an authenticator requires a valid bearer token on every route but /health", async () => {
    const seen: string[] = [];
    const url = await serve(async (token) => {
      seen.push(token);
      return token === "good-token";
    });
    const none = await send(url, "POST", "/events", { headers: json, body: event });
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toBe('Bearer realm="ironclaw-ledger"');
    expect(none.body.error).toMatchObject({
      code: "unauthorized",
      message: expect.stringMatching(/bearer token/),
    });
    const wrong = { ...json, authorization: "Bearer bad-token" };
    expect((await send(url, "POST", "/events", { headers: wrong, body: event })).status).toBe(401);
    expect((await send(url, "GET", "/events")).status).toBe(401);
    expect((await send(url, "GET", "/runs/r1")).status).toBe(401);
    expect(await head()).toBe(0);
    expect((await send(url, "GET", "/health")).status).toBe(200);

    // With a token the Host may be any name: behind a reverse proxy it is the proxy's.
    const good = { ...json, authorization: "Bearer good-token", host: "ledger.example.org" };
    expect((await send(url, "POST", "/events", { headers: good, body: event })).status).toBe(201);
    expect((await send(url, "GET", "/runs/r1", { headers: good })).status).toBe(200);
    expect(seen).toEqual(["bad-token", "good-token", "good-token"]);
  });

  it(`refuses a payload nested deeper than ${MAX_JSON_DEPTH} levels with 400 naming the path and the rule`, async () => {
    const url = await serve();
    for (const depth of [MAX_JSON_DEPTH, 5_000]) {
      const refused = await send(url, "POST", "/events", { headers: json, body: nestedEvent(depth) });
      expect([depth, refused.status, refused.body.error?.code]).toEqual([depth, 400, "validation_failed"]);
      expect(refused.body.error?.message).toBe(
        `$.payload${".a".repeat(MAX_JSON_DEPTH - 1)}: nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels, the ledger's limit`,
      );
    }
    const batch = `{"events":[${nestedEvent(5_000)}]}`;
    expect((await send(url, "POST", "/events/batch", { headers: json, body: batch })).status).toBe(400);
    expect(await head()).toBe(0);
    // One level less is accepted, stored whole and read back equal.
    const deepest = nestedEvent(MAX_JSON_DEPTH - 1);
    expect((await send(url, "POST", "/events", { headers: json, body: deepest })).status).toBe(201);
    const [stored] = await ledger.store.read({ after: 0 });
    expect(stored?.payload).toEqual(JSON.parse(deepest).payload);
  });

  it("refuses a __proto__ key anywhere in the body with 400 naming it, rather than store less than it acknowledged", async () => {
    const url = await serve();
    // JSON.parse keeps "__proto__" as an own key; only the raw text can carry it to the server.
    const withProto = (inner: string) => `{${inner},${JSON.stringify(runCreated("r1")).slice(1)}`;
    const bodies = [
      ["/events", withProto('"__proto__":{"admin":true}'), "$.__proto__"],
      ["/events", withProto('"extra":[{"__proto__":1}]'), "$.extra[0].__proto__"],
      [
        "/events/batch",
        `{"events":[${withProto('"payload_x":{"__proto__":{}}')}]}`,
        "$.events[0].payload_x.__proto__",
      ],
    ] as const;
    for (const [route, body, path] of bodies) {
      const refused = await send(url, "POST", route, { headers: json, body });
      expect([path, refused.status]).toEqual([path, 400]);
      expect(refused.body.error).toMatchObject({
        code: "validation_failed",
        message: expect.stringContaining(`${path}: a key named __proto__ is not accepted`),
        details: { issues: [{ path }] },
      });
    }
    expect(await head()).toBe(0);
    // Keys that merely look special are ordinary JSON and are kept exactly.
    const ordinary = { constructor: 1, prototype: { toString: "x" } };
    const body = JSON.stringify({ ...ev("PATROL_TICK", null), payload: ordinary });
    expect((await send(url, "POST", "/events", { headers: json, body })).status).toBe(201);
    expect((await ledger.store.read({ after: 0 }))[0]?.payload).toEqual(ordinary);
  });
});
